/* test_dist.c — src/dist's C layer without the VM: the TCP store (every operation, deadlines and
 * their messages), a process group of one on the Gloo engine (queued and inline collectives,
 * works keeping their tensors, counters), float16 conversions (every half exactly, floats as the
 * compiler's _Float16 rounds them) and torchrun's error files. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "ember/tensor.h"
#include "src/dist/errfile.h"
#include "src/dist/half.h"
#include "src/dist/pg.h"
#include "src/dist/store.h"

static char err[DIST_ERR_LEN];

static DistStore *master(int world) {
    DistStore *s = dist_store_tcp_new("127.0.0.1", 0, world, true, 2000, false, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    return s;
}

Test(store, set_get_add_check_delete) {
    DistStore *m = master(2);
    DistStore *c = dist_store_tcp_new("127.0.0.1", dist_store_port(m), 2, false, 2000, false, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    cr_assert_eq(dist_store_set(m, "k", "value", 5, err, sizeof err), 0);
    void *data;
    size_t len;
    cr_assert_eq(dist_store_get(c, "k", &data, &len, -1, err, sizeof err), 0);
    cr_assert_eq(len, 5);
    cr_assert(memcmp(data, "value", 5) == 0);
    free(data);
    int64_t v;
    cr_assert_eq(dist_store_add(c, "n", 5, &v, err, sizeof err), 0);
    cr_assert_eq(v, 5);
    cr_assert_eq(dist_store_add(m, "n", -2, &v, err, sizeof err), 0);
    cr_assert_eq(v, 3);
    cr_assert_eq(dist_store_get(c, "n", &data, &len, -1, err, sizeof err), 0);
    cr_assert(len == 1 && ((char *)data)[0] == '3', "add keeps a decimal number as PyTorch's store does");
    free(data);
    bool all;
    const char *keys[] = {"k", "n"}, *missing[] = {"k", "nope"};
    cr_assert_eq(dist_store_check(c, keys, 2, &all, err, sizeof err), 0);
    cr_assert(all);
    cr_assert_eq(dist_store_check(c, missing, 2, &all, err, sizeof err), 0);
    cr_assert(!all);
    int64_t n;
    cr_assert_eq(dist_store_num_keys(c, &n, err, sizeof err), 0);
    cr_assert_eq(n, 2);
    bool deleted;
    cr_assert_eq(dist_store_delete(c, "k", &deleted, err, sizeof err), 0);
    cr_assert(deleted);
    cr_assert_eq(dist_store_delete(c, "k", &deleted, err, sizeof err), 0);
    cr_assert(!deleted);
    void *out;
    size_t olen;
    cr_assert_eq(dist_store_compare_set(c, "cas", "", 0, "a", 1, &out, &olen, err, sizeof err), 0);
    cr_assert(olen == 1 && ((char *)out)[0] == 'a');
    free(out);
    cr_assert_eq(dist_store_compare_set(c, "cas", "x", 1, "b", 1, &out, &olen, err, sizeof err), 0);
    cr_assert(olen == 1 && ((char *)out)[0] == 'a', "a failed compare leaves the value");
    free(out);
    dist_store_decref(c);
    dist_store_decref(m);
}

Test(store, deadlines_say_what_they_waited_for) {
    DistStore *m = master(1);
    void *data;
    size_t len;
    cr_assert_eq(dist_store_get(m, "never", &data, &len, 50, err, sizeof err), -1);
    cr_assert(strstr(err, "Timed out after 50 ms waiting for key 'never'"), "%s", err);
    const char *keys[] = {"never"};
    cr_assert_eq(dist_store_wait(m, keys, 1, 50, err, sizeof err), -1);
    cr_assert(strstr(err, "Wait timeout after 50 ms for keys ['never']"), "%s", err);
    int port = dist_store_port(m);
    /* the port is taken: a second master cannot listen on it */
    DistStore *again = dist_store_tcp_new("127.0.0.1", port, 1, true, 100, false, err, sizeof err);
    cr_assert_null(again);
    cr_assert(strstr(err, "has failed to bind to [::]:"), "%s", err);
    dist_store_decref(m);
    /* nobody serves the port any more: a client gives up at its deadline */
    DistStore *c = dist_store_tcp_new("127.0.0.1", port, 2, false, 300, false, err, sizeof err);
    cr_assert_null(c);
    cr_assert(strstr(err, "The client socket has timed out after 0s while trying to connect to (127.0.0.1, "), "%s", err);
}

Test(store, master_waits_for_workers_until_its_deadline) {
    DistStore *m = dist_store_tcp_new("127.0.0.1", 0, 3, true, 300, true, err, sizeof err);
    cr_assert_null(m);
    cr_assert_str_eq(err, "Timed out after 0 seconds waiting for clients. 1/3 clients joined.");
}

static DistPG *group_of_one(DistStore **store) {
    const DistBackend *be = dist_backend_load("gloo", err, sizeof err);
    if (!be) cr_skip_test("gloo engine not built: %s", err);
    int r, s;
    cr_assert_eq(be->init(&r, &s, err, sizeof err), 0);
    *store = master(1);
    DistCreate ca = {.rank = 0, .size = 1, .store = dist_store_ops(*store), .prefix = "t/", .timeout_ms = 2000,
                     .hostname = "127.0.0.1", .iface = ""};
    DistComm *comm = be->create(&ca, err, sizeof err);
    cr_assert_not_null(comm, "%s", err);
    return dist_pg_new(be, comm, 0, 1, 2000);
}

Test(pg, queued_and_inline_collectives_on_gloo) {
    DistStore *store;
    DistPG *pg = group_of_one(&store);
    Tensor *t = tensor_arange_f(0, 8, 1);
    int64_t live = tensor_live_count();
    for (int inline_ = 0; inline_ < 2; inline_++) {
        DistCall c = {.kind = DIST_ALLREDUCE, .dtype = DIST_F32, .op = DIST_SUM, .in = tensor_data_ptr(t),
                      .out = tensor_data_ptr(t), .count = 8};
        DistWork *w = dist_work_new(pg, &c, "all_reduce");
        cr_assert_eq(dist_work_hold(w, t), 0);
        if (inline_) dist_pg_run_next_inline(pg);
        dist_pg_enqueue(pg, w);
        cr_assert_eq(dist_work_wait(w, -1, err, sizeof err), 0, "%s", err);
        cr_assert_eq(dist_work_state(w), DIST_WORK_DONE);
        cr_assert_eq(tensor_refcount(t), 2, "the work holds its tensor until released");
        dist_work_release(w);
        cr_assert_eq(tensor_refcount(t), 1);
    }
    cr_assert_eq(tensor_live_count(), live);
    float *f = tensor_data_ptr(t);
    cr_assert_eq(f[7], 7.0f, "a group of one sums to itself");
    DistPGStats st = dist_pg_stats(pg);
    cr_assert_eq(st.n_ops, 2);
    /* a work released before it finished is kept by its group until it has */
    DistCall b = {.kind = DIST_BARRIER};
    DistWork *w = dist_work_new(pg, &b, "barrier");
    dist_pg_enqueue(pg, w);
    dist_work_release(w);
    tensor_decref(t);
    dist_pg_decref(pg);
    dist_store_decref(store);
}

Test(pg, unknown_engine) {
    cr_assert_null(dist_backend_load("nccl", err, sizeof err));
    cr_assert_str_eq(err, "Invalid backend: 'nccl'");
}

Test(half, every_half_round_trips_and_floats_round_to_nearest_even) {
    for (uint32_t h = 0; h < 65536; h++) {
        float f = dist_half_to_float((uint16_t)h);
        if (f != f) continue;   /* NaN payloads */
        cr_assert_eq(dist_float_to_half(f), h, "half %#x", h);
    }
    for (uint64_t i = 0; i < (1ull << 32); i += 65521) {
        uint32_t x = (uint32_t)i;
        float f;
        memcpy(&f, &x, 4);
        if (f != f) continue;
        _Float16 ref = (_Float16)f;
        uint16_t bits;
        memcpy(&bits, &ref, 2);
        cr_assert_eq(dist_float_to_half(f), bits, "float %a", (double)f);
    }
}

Test(errfile, written_and_read_back) {
    char path[] = "/tmp/ember_errfile_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    setenv("TORCHELASTIC_ERROR_FILE", path, 1);
    dist_error_file_write("ValueError: bad \"batch\"", "Traceback (most recent call last):\n  File \"x.py\"\nValueError: bad \"batch\"\t!");
    char *stack = NULL;
    double when = 0;
    cr_assert_eq(dist_error_file_read(path, &stack, &when), 0);
    cr_assert_str_eq(stack, "Traceback (most recent call last):\n  File \"x.py\"\nValueError: bad \"batch\"\t!");
    cr_assert(when > 1e9);
    free(stack);
    unsetenv("TORCHELASTIC_ERROR_FILE");
    unlink(path);
    cr_assert_eq(dist_error_file_read(path, &stack, &when), -1);
}
