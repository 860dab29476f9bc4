/* profiler.c — the event recorder under torch.profiler / torch.autograd.profiler: while on, every
 * tensor op (at every depth: "aten::addmm" inside "aten::linear"), the autograd engine's node
 * evaluations ("autograd::engine::evaluate_function: MmBackward0" around "MmBackward0") and
 * record_function ranges become events with start and end times (CLOCK_MONOTONIC) and, with
 * record_shapes, their tensor inputs' shapes.  The events are kept in C (the tensor layer calls
 * in from inside kernels, where nothing may allocate VM objects) and handed to the Python side
 * (torch/autograd/profiler.py) as tuples when the profile stops; that side builds PyTorch's
 * FunctionEvent / EventList views and tables.
 *
 * An op entered again directly inside itself (ag_op_run then tensor_op_run for the same op) is
 * one event, as in PyTorch where the autograd wrapper and the kernel share one record. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/torch/torch.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct ProfEvent {
    char *name;
    int64_t t0, t1;        /* ns since the profile started; t1 < 0 while open */
    int32_t parent;        /* enclosing event, or -1 */
    int32_t op;            /* tensor op, or -1 for a named range */
    int32_t same_nest;     /* re-entries of the same op directly inside it */
    int64_t *shapes;       /* record_shapes: n inputs, then per input ndim (-1: not a tensor) and dims */
} ProfEvent;

static struct {
    bool on, record_shapes;
    int64_t origin;
    ProfEvent *ev;
    int32_t n, cap;
    int32_t *open;         /* stack of open events */
    int32_t nopen, open_cap;
    bool oom;              /* an event could not be stored: the profile says so when it stops */
} rec;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void free_events(void) {
    for (int32_t i = 0; i < rec.n; i++) {
        free(rec.ev[i].name);
        free(rec.ev[i].shapes);
    }
    free(rec.ev);
    free(rec.open);
    rec.ev = NULL;
    rec.open = NULL;
    rec.n = rec.cap = rec.nopen = rec.open_cap = 0;
}

static int64_t *shapes_of(Tensor *const *in, int n) {
    size_t len = 1;
    for (int i = 0; i < n; i++) len += 1 + (in[i] ? (size_t)tensor_ndim(in[i]) : 0);
    int64_t *s = malloc(len * sizeof *s), *p = s;
    if (!s) return NULL;
    *p++ = n;
    for (int i = 0; i < n; i++) {
        if (!in[i]) {
            *p++ = -1;
            continue;
        }
        int nd = tensor_ndim(in[i]);
        *p++ = nd;
        const int64_t *shape = tensor_shape(in[i]);
        for (int d = 0; d < nd; d++) *p++ = shape[d];
    }
    return s;
}

/* room for one more element in a growing array (doubling from first); false when out of memory */
static bool room(void **arr, int32_t *cap, int32_t n, size_t elem, int32_t first) {
    if (n < *cap) return true;
    int32_t c = *cap ? *cap * 2 : first;
    void *p = realloc(*arr, (size_t)c * elem);
    if (!p) return false;
    *arr = p;
    *cap = c;
    return true;
}

static void begin_event(int op, const char *prefix, const char *name, Tensor *const *in, int n_in) {
    if (op >= 0 && rec.nopen > 0) {
        ProfEvent *top = &rec.ev[rec.open[rec.nopen - 1]];
        if (top->op == op) {
            top->same_nest++;
            return;
        }
    }
    if (!room((void **)&rec.ev, &rec.cap, rec.n, sizeof *rec.ev, 1024) ||
        !room((void **)&rec.open, &rec.open_cap, rec.nopen, sizeof *rec.open, 64))
        goto oom;
    size_t lp = strlen(prefix), ln = strlen(name), extra = op >= 0 ? 6 : 0;
    char *full = malloc(extra + lp + ln + 1);
    if (!full) goto oom;
    memcpy(full, "aten::", extra);
    memcpy(full + extra, prefix, lp);
    memcpy(full + extra + lp, name, ln + 1);
    ProfEvent *e = &rec.ev[rec.n];
    *e = (ProfEvent){full, now_ns() - rec.origin, -1, rec.nopen ? rec.open[rec.nopen - 1] : -1, op, 0, NULL};
    if (rec.record_shapes && op >= 0) e->shapes = shapes_of(in, n_in);
    rec.open[rec.nopen++] = rec.n++;
    return;
oom:
    rec.oom = true;
}

static void end_event(int op) {
    if (rec.nopen == 0) return;   /* began before the profile did */
    ProfEvent *top = &rec.ev[rec.open[rec.nopen - 1]];
    if (op >= 0 && top->op == op && top->same_nest > 0) {
        top->same_nest--;
        return;
    }
    top->t1 = now_ns() - rec.origin;
    rec.nopen--;
}

static void on_op(void *ctx, int op, const char *prefix, const char *name, Tensor *const *in, int n_in, bool begin) {
    (void)ctx;
    if (!rec.on) return;
    if (begin) begin_event(op, prefix, name, in, n_in);
    else end_event(op);
}

static Value prof_enable(ARGS) {
    if (rec.on) return vm_raise(vm, vm->e_RuntimeError, "The profiler is already enabled on this thread");
    free_events();
    rec.record_shapes = argc > 0 && vm_truthy(vm, argv[0]) > 0;
    rec.oom = false;
    rec.origin = now_ns();
    rec.on = true;
    tensor_set_profiler(on_op, NULL);
    return val_none();
}

static Value shapes_list(VM *vm, const int64_t *s) {
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    const int64_t *p = s + 1;
    for (int64_t i = 0; i < s[0]; i++) {
        int64_t nd = *p++;
        ListObj *dims = list_new(vm, 0);
        if (!dims || list_append(vm, l, val_obj(dims)) < 0) goto fail;
        for (int64_t d = 0; d < nd; d++)
            if (list_append(vm, dims, val_int(*p++)) < 0) goto fail;
    }
    vm_pop_root(vm);
    return val_obj(l);
fail:
    vm_pop_root(vm);
    return val_null();
}

/* the events as a list of (name, start_us, end_us, parent, input_shapes or None); ranges still
 * open end now */
static Value prof_disable(ARGS) {
    if (!rec.on) return vm_raise(vm, vm->e_RuntimeError, "The profiler is not enabled");
    tensor_set_profiler(NULL, NULL);
    rec.on = false;
    int64_t end = now_ns() - rec.origin;
    for (int32_t i = 0; i < rec.nopen; i++) rec.ev[rec.open[i]].t1 = end;
    rec.nopen = 0;
    if (rec.oom) {
        free_events();
        return vm_raise(vm, vm->e_MemoryError, "profiler: out of memory while recording events");
    }
    ListObj *l = list_new(vm, 0);
    if (!l) goto fail;
    vm_push_root(vm, val_obj(l));
    for (int32_t i = 0; i < rec.n; i++) {
        ProfEvent *e = &rec.ev[i];
        StrObj *name = str_from_c(vm, e->name);
        if (!name) goto fail_rooted;
        vm_push_root(vm, val_obj(name));
        Value shapes = e->shapes ? shapes_list(vm, e->shapes) : val_none();
        if (val_is_null(shapes)) {
            vm_pop_root(vm);
            goto fail_rooted;
        }
        vm_push_root(vm, shapes);
        Value items[5] = {val_obj(name), val_float((double)e->t0 / 1000.0), val_float((double)e->t1 / 1000.0),
                          val_int(e->parent), shapes};
        TupleObj *t = tuple_from_array(vm, items, 5);
        vm_pop_roots(vm, 2);
        if (!t || list_append(vm, l, val_obj(t)) < 0) goto fail_rooted;
    }
    vm_pop_root(vm);
    free_events();
    return val_obj(l);
fail_rooted:
    vm_pop_root(vm);
fail:
    free_events();
    return val_null();
}

/* record_function's range: a user name around what runs inside it */
static Value prof_push(ARGS) {
    if (!val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "record_function name must be str, not %s", vm_type_name(vm, argv[0]));
    if (rec.on) begin_event(-1, "", AS_STR(argv[0])->data, NULL, 0);
    return val_bool(rec.on);
}

static Value prof_pop(ARGS) {
    if (rec.on) end_event(-1);
    return val_none();
}

static Value prof_enabled(ARGS) { return val_bool(rec.on); }

int torch_profiler_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"_profiler_enable", prof_enable, ARITY_POS(0, 1)}, {"_profiler_disable", prof_disable, ARITY_NOARGS},
        {"_profiler_push", prof_push, ARITY_O}, {"_profiler_pop", prof_pop, ARITY_NOARGS},
        {"_profiler_enabled", prof_enabled, ARITY_NOARGS}, {NULL}};
    return module_add_functions(vm, mod, fns);
}
