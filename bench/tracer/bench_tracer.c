/* bench/tracer/bench_tracer.c — the tracer's costs (issue 6), measured inside one embedded VM:
 *
 *   trace_mlp / trace_mlp12   trace + residual codegen of an MLP forward (784-256-256-10) and of
 *                             a 12-layer MLP: the first call of the compiled function after
 *                             torch._dynamo.reset(), minus a warm call (backend "eager", so no
 *                             plan is built; with backend "ember" the plan build is reported too)
 *   guard_check               one evaluation of the cache entry's whole guard program for the
 *                             MLP frame (what every compiled call pays before running)
 *   call_overhead             a compiled call of a tiny function (x + 1 on a 1-element tensor)
 *                             minus the eager call
 *
 * Prints "name microseconds" lines (median of several rounds); bench/tracer/run.py compares them
 * with PyTorch's TorchScript in the same run.  Not a test: nothing here asserts a timing.
 *
 * BENCH_ROUNDS=N sets the trace figures' rounds (15); BENCH_VERBOSE=1 prints each round's times,
 * minor page faults and peak RSS on stderr, and what the first call left behind when no
 * collection ran in it: VM object bytes and tensor storage bytes the collector's pacing counts,
 * live Tensors, malloc's bytes in use and its heap's size.  A first touch of memory the heap has
 * not used before costs a fault (about 1.4 us on the bench machine, far more on a loaded VM), and
 * the heap grows until the collector frees what a compile left: the faults, not the instruction
 * counts, are what moves trace_mlp between builds whose collector runs at different intervals
 * (malloc_kb far above objects_kb is memory the pacing does not see). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <malloc.h>

#include "ember/ember.h"
#include "src/tracer/tracer.h"
#include "src/tracer/tracer_api.h"
#include "src/tracer/tracer_state.h"
#include "vm/call.h"
#include "vm/gc.h"

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static struct rusage usage(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static const char *SETUP =
    "import torch\n"
    "import torch._dynamo\n"
    "import torch.nn as nn\n"
    "torch.manual_seed(0)\n"
    "mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))\n"
    "layers = []\n"
    "for i in range(12):\n"
    "    layers.append(nn.Linear(64, 64))\n"
    "    layers.append(nn.ReLU())\n"
    "mlp12 = nn.Sequential(*layers)\n"
    "x = torch.randn(1, 784)\n"
    "x12 = torch.randn(1, 64)\n"
    "t = torch.ones(1)\n"
    "def fwd(x):\n"
    "    return mlp(x)\n"
    "def fwd12(x):\n"
    "    return mlp12(x)\n"
    "def tiny(t):\n"
    "    return t + 1\n"
    "def compiled(fn, backend):\n"
    "    return torch.compile(fn, backend=backend)\n"
    "def reset():\n"
    "    torch._dynamo.reset()\n";

static EmRef *global(EmVM *vm, const char *name) {
    EmRef *r = em_get_global(vm, "__main__", name);
    if (!r) {
        em_print_error(vm);
        exit(1);
    }
    return r;
}

static void call_or_die(EmVM *vm, EmRef *fn, int argc, EmRef **argv) {
    EmRef *r = em_call(vm, fn, argc, argv);
    if (!r) {
        em_print_error(vm);
        exit(1);
    }
    em_release(vm, r);
}

/* writes and reads 32 MiB, so what the caches held before is gone */
static void evict_caches(void) {
    enum { N = 32 << 20 };
    static volatile unsigned char *buf;
    if (!buf) buf = malloc(N);
    for (size_t i = 0; i < N; i += 64) buf[i] = (unsigned char)(buf[i] + 1);
}

/* microseconds of the first compiled call after reset() minus a warm call */
static double trace_time(EmVM *vm, const char *fn_name, const char *arg, const char *backend) {
    EmRef *mk = global(vm, "compiled"), *reset = global(vm, "reset"), *fn = global(vm, fn_name), *x = global(vm, arg);
    EmRef *b = em_str(vm, backend);
    EmRef *args[2] = {fn, b};
    EmRef *cf = em_call(vm, mk, 2, args);
    enum { MAX_ROUNDS = 1000 };
    static double first[MAX_ROUNDS], warm[MAX_ROUNDS];
    int rounds = getenv("BENCH_ROUNDS") ? atoi(getenv("BENCH_ROUNDS")) : 15;
    if (rounds < 1 || rounds > MAX_ROUNDS) rounds = 15;
    bool verbose = getenv("BENCH_VERBOSE") != NULL;
    for (int r = 0; r < rounds; r++) {
        call_or_die(vm, reset, 0, NULL);
        VM *v = (VM *)vm;
        size_t b0 = v->bytes_allocated, s0 = v->storage_bytes;
        int64_t n0 = tensor_live_count(), g0 = v->gc_count;
        struct mallinfo2 m0 = mallinfo2();
        struct rusage u0 = usage();
        double t0 = now_us();
        call_or_die(vm, cf, 1, &x);
        double t1 = now_us();
        struct rusage u1 = usage();
        size_t b1 = v->bytes_allocated, s1 = v->storage_bytes;
        int64_t n1 = tensor_live_count(), g1 = v->gc_count;
        struct mallinfo2 m1 = mallinfo2();
        if (getenv("BENCH_EVICT")) evict_caches();
        double t1w = now_us();
        call_or_die(vm, cf, 1, &x);
        double t2 = now_us();
        first[r] = t1 - t0;
        warm[r] = t2 - t1w;
        if (verbose) {
            struct rusage u2 = usage();
            fprintf(stderr, "%s round %d first %.1f warm %.1f faults %ld %ld maxrss_kb %ld", fn_name, r, first[r],
                    warm[r], u1.ru_minflt - u0.ru_minflt, u2.ru_minflt - u1.ru_minflt, u2.ru_maxrss);
            if (g1 == g0)   /* what the first call left for the collector (no collection in it) */
                fprintf(stderr, " objects_kb %+.1f storage_kb %+.1f tensors %+lld malloc_kb %+.1f heap_kb %+.1f", ((double)b1 - (double)b0) / 1024,
                        ((double)s1 - (double)s0) / 1024, (long long)(n1 - n0), ((double)m1.uordblks - (double)m0.uordblks) / 1024,
                        ((double)m1.arena - (double)m0.arena) / 1024);
            fprintf(stderr, "\n");
        }
    }
    em_release(vm, cf);
    em_release(vm, b);
    em_release(vm, x);
    em_release(vm, fn);
    em_release(vm, reset);
    em_release(vm, mk);
    return median(first, rounds) - median(warm, rounds);
}

/* nanoseconds of one pass over the MLP frame's guard program */
static double guard_time(EmVM *evm, int *n_guards) {
    VM *vm = (VM *)evm;
    EmRef *mk = global(evm, "compiled"), *fn = global(evm, "fwd"), *x = global(evm, "x"), *reset = global(evm, "reset");
    EmRef *b = em_str(evm, "eager");
    EmRef *args[2] = {fn, b};
    call_or_die(evm, reset, 0, NULL);
    EmRef *cf = em_call(evm, mk, 2, args);
    call_or_die(evm, cf, 1, &x);   /* compiles: one cache entry */
    FunctionObj *f = (FunctionObj *)((ExtRoot *)fn)->v.as.o;
    CodeCache *cc = tracer_code_cache(vm, f->code, false);
    if (!cc || !cc->entries) {
        fprintf(stderr, "bench_tracer: no cache entry for fwd\n");
        exit(1);
    }
    CacheEntry *e = cc->entries;
    *n_guards = e->n_guards;
    Frame *fr = frame_push(vm, f->code, (Obj *)f, f->globals, NULL);
    fr->localsplus[0] = ((ExtRoot *)x)->v;
    enum { N = 200000, ROUNDS = 7 };
    double t[ROUNDS];
    int pass = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_us();
        for (int i = 0; i < N; i++) pass += guard_program_check(vm, fr, e);
        t[r] = (now_us() - t0) * 1e3 / N;
    }
    frame_pop(vm, fr);
    if (pass != N * ROUNDS) fprintf(stderr, "bench_tracer: the guards failed on the frame they were made for\n");
    em_release(evm, cf);
    em_release(evm, b);
    em_release(evm, x);
    em_release(evm, fn);
    em_release(evm, reset);
    em_release(evm, mk);
    return median(t, ROUNDS);
}

/* microseconds per call: compiled tiny(t) and eager tiny(t) */
static void call_times(EmVM *vm, double *compiled, double *eager) {
    EmRef *mk = global(vm, "compiled"), *fn = global(vm, "tiny"), *t = global(vm, "t"), *reset = global(vm, "reset");
    EmRef *b = em_str(vm, "eager");
    EmRef *args[2] = {fn, b};
    call_or_die(vm, reset, 0, NULL);
    EmRef *cf = em_call(vm, mk, 2, args);
    call_or_die(vm, cf, 1, &t);
    enum { N = 200000, ROUNDS = 7 };
    double tc[ROUNDS], te[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_us();
        for (int i = 0; i < N; i++) call_or_die(vm, cf, 1, &t);
        double t1 = now_us();
        for (int i = 0; i < N; i++) call_or_die(vm, fn, 1, &t);
        double t2 = now_us();
        tc[r] = (t1 - t0) / N;
        te[r] = (t2 - t1) / N;
    }
    *compiled = median(tc, ROUNDS);
    *eager = median(te, ROUNDS);
    em_release(vm, cf);
    em_release(vm, b);
    em_release(vm, t);
    em_release(vm, fn);
    em_release(vm, reset);
    em_release(vm, mk);
}

int main(void) {
    EmVM *vm = em_vm_new();
    if (em_run_string(vm, SETUP, "<bench>") < 0) {
        em_print_error(vm);
        return 1;
    }
    if (getenv("BENCH_ONLY_TRACE")) {   /* for profiling one figure alone: "mlp12", "plan12" */
        const char *w = getenv("BENCH_ONLY_TRACE");
        bool twelve = strstr(w, "12") != NULL;
        printf("%s %.1f\n", w, trace_time(vm, twelve ? "fwd12" : "fwd", twelve ? "x12" : "x", strstr(w, "plan") ? "ember" : "eager"));
        em_vm_free(vm);
        return 0;
    }
    if (getenv("BENCH_ONLY_CALLS")) {
        double c, e;
        call_times(vm, &c, &e);
        printf("call_overhead %.4f\n", c - e);
        em_vm_free(vm);
        return 0;
    }
    if (getenv("BENCH_ONLY_GUARDS")) {   /* for profiling the guard program alone */
        int n = 0;
        printf("guard_check %.4f\n", guard_time(vm, &n) / 1e3);
        em_vm_free(vm);
        return 0;
    }
    printf("trace_mlp %.1f\n", trace_time(vm, "fwd", "x", "eager"));
    printf("trace_mlp12 %.1f\n", trace_time(vm, "fwd12", "x12", "eager"));
    printf("trace_plan_mlp %.1f\n", trace_time(vm, "fwd", "x", "ember"));
    printf("trace_plan_mlp12 %.1f\n", trace_time(vm, "fwd12", "x12", "ember"));
    int n_guards = 0;
    double g = guard_time(vm, &n_guards);
    printf("guard_check %.4f\n", g / 1e3);
    printf("guard_count %d\n", n_guards);
    double c, e;
    call_times(vm, &c, &e);
    printf("call_compiled %.4f\n", c);
    printf("call_eager %.4f\n", e);
    printf("call_overhead %.4f\n", c - e);
    em_vm_free(vm);
    return 0;
}
