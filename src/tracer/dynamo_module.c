/* src/tracer/dynamo_module.c — the tracer's script-facing side: the native module
 * torch._dynamo._ember (run a callable compiled, reset, explain collection, config limits), the
 * natives residual code calls (grad-mode restorers, _make_cell, _iter_at), and registration of
 * the tracer with a VM (its state, backends, and the library modules torch._dynamo and its
 * config). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember/autograd.h"
#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

typedef struct EmbeddedModule {
    const char *name;
    const char *source;
    bool is_package;
} EmbeddedModule;
extern const EmbeddedModule tracer_lib_modules[];

/* ---- run(fn, backend, fullgraph, args, kwargs) ----------------------------------------------------- */

/* options from (backend name or callable, fullgraph); -1 with an exception */
static int options_of(VM *vm, Value backend, Value fullgraph, CompileOptions *opts) {
    *opts = (CompileOptions){.user_backend = val_null()};
    if (val_is_str(vm, backend)) {
        opts->backend = tracer_find_backend(AS_STR(backend)->data);
        if (!opts->backend) {
            vm_raise(vm, vm->e_RuntimeError, "torch._dynamo.exc.InvalidBackend: Invalid backend: '%s'", AS_STR(backend)->data);
            return -1;
        }
    } else {
        opts->backend = tracer_find_backend("eager");
        opts->user_backend = backend;
    }
    int fg = vm_truthy(vm, fullgraph);
    if (fg < 0) return -1;
    opts->fullgraph = fg;
    return 0;
}

static Value m_run(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)fn;
    if (argc != 5 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "run(fn, backend, fullgraph, args, kwargs)");
    CompileOptions opts;
    if (options_of(vm, argv[1], argv[2], &opts) < 0) return val_null();
    Value kwargs = val_is_none(argv[4]) ? val_null() : argv[4];
    return tracer_run_compiled(vm, argv[0], argv[3], kwargs, &opts);
}

/* compiled(fn, backend, fullgraph): the callable torch.compile(fn) returns */
static Value m_compiled(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)fn;
    if (argc != 3 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "compiled(fn, backend, fullgraph)");
    CompileOptions opts;
    if (options_of(vm, argv[1], argv[2], &opts) < 0) return val_null();
    return tracer_compiled_fn_new(vm, argv[0], &opts);
}

static Value m_reset(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argc, (void)argv, (void)kw, (void)fn;
    tracer_reset(vm);
    return val_none();
}

static Value m_set_cache_size_limit(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)kw, (void)fn;
    if (argc != 1 || !val_is_int(argv[0])) return vm_raise(vm, vm->e_TypeError, "cache_size_limit must be an int");
    tracer_state(vm)->cache_size_limit = (int32_t)argv[0].as.i;
    return val_none();
}

static Value m_explain_begin(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argc, (void)argv, (void)kw, (void)fn;
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    tracer_state(vm)->explain_sink = val_obj(l);
    return val_none();
}

static Value m_explain_end(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argc, (void)argv, (void)kw, (void)fn;
    TracerState *st = tracer_state(vm);
    Value r = st->explain_sink;
    st->explain_sink = val_null();
    return val_is_null(r) ? val_obj(list_new(vm, 0)) : r;
}

static Value m_set_logs(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)kw, (void)fn;
    if (argc != 1 || !val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "_set_logs(spec: str)");
    trace_logs_set(AS_STR(argv[0])->data);
    return val_none();
}

/* _report_mod_event(event, module, parents): a ModTracker event for the compile report, or
 * None when no report is written (ModTracker asks _reporting() once per `with`) */
static Value m_reporting(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argc, (void)argv, (void)kw, (void)fn;
    return val_bool(tracer_state(vm)->report != NULL);
}

static Value m_report_mod_event(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)kw, (void)fn;
    if (argc != 3 || !val_is_str(vm, argv[0]) || !val_is_str(vm, argv[1]) || !val_is_str(vm, argv[2]))
        return vm_raise(vm, vm->e_TypeError, "_report_mod_event(event: str, module: str, parents: str)");
    TracerState *st = tracer_state(vm);
    if (st->report) rp_log_mod_event(st->report, AS_STR(argv[0])->data, AS_STR(argv[1])->data, AS_STR(argv[2])->data);
    return val_none();
}

/* __exit__ of a grad-mode `with` block resumed by residual code: the mode from before the block */
static Value grad_restore(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)vm, (void)argc, (void)argv, (void)kw;
    ag_set_grad_enabled(fn->payload.as.b);
    return val_none();
}

static Value make_cell(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)fn;
    if (argc > 1 || (kw && kw->len)) return vm_raise(vm, vm->e_TypeError, "_make_cell([value])");
    vm_push_root(vm, argc ? argv[0] : val_none());
    CellObj *c = gc_alloc(vm, vm->t_cell, sizeof(CellObj));
    vm_pop_root(vm);
    if (!c) return val_null();
    c->v = argc ? argv[0] : val_null();
    return val_obj(c);
}

/* _iter_at(list, n): iter(list) advanced past n items — a for loop's list iterator rebuilt by
 * residual code at a break inside the loop, still over the list itself so items the rest of the
 * loop appends are seen (codegen.c) */
static Value iter_at(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)fn;
    if (argc != 2 || (kw && kw->len) || argv[1].tag != VAL_INT) return vm_raise(vm, vm->e_TypeError, "_iter_at(seq, n)");
    Value it = vm_iter(vm, argv[0]);
    if (val_is_null(it)) return it;
    if (it.tag == VAL_OBJ && it.as.o->type == vm->t_list_iterator) {
        /* positioned, not advanced: items the residual code appends afterwards still come */
        ((IterObj *)it.as.o)->i = argv[1].as.i;
        return it;
    }
    vm_push_root(vm, it);
    for (int64_t i = 0; i < argv[1].as.i; i++) {
        Value x = vm_next(vm, it);
        if (val_is_null(x)) {
            if (!val_is_null(vm->exc)) {
                vm_pop_root(vm);
                return val_null();
            }
            break;
        }
    }
    vm_pop_root(vm);
    return it;
}

/* ---- registration ---------------------------------------------------------------------------------------- */

static void state_trace(VM *vm, void *p) {
    TracerState *st = p;
    gc_mark(vm, st->t_compiled_graph);
    gc_mark(vm, st->t_compiled_fn);
    gc_mark_value(vm, st->grad_restorer[0]);
    gc_mark_value(vm, st->grad_restorer[1]);
    gc_mark_value(vm, st->make_cell);
    gc_mark_value(vm, st->iter_at);
    gc_mark_value(vm, st->explain_sink);
    gc_mark_value(vm, st->opts.user_backend);
    if (st->compiling) gc_trace_frame(vm, st->compiling);
}

static void state_free(VM *vm, void *p) {
    TracerState *st = p;
    vm->ext[TRACER_EXT] = NULL;
    tracer_report_free(st);
    tensor_generator_free(st->rng_saved);
    free(st->cached_codes);
    free(st);
}

static int ember_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"run", m_run}, {"compiled", m_compiled}, {"reset", m_reset}, {"set_cache_size_limit", m_set_cache_size_limit},
        {"explain_begin", m_explain_begin}, {"explain_end", m_explain_end}, {"_set_logs", m_set_logs},
        {"_reporting", m_reporting}, {"_report_mod_event", m_report_mod_event}, {NULL}};
    return module_add_functions(vm, mod, fns);
}

void tracer_set_inspect(VM *vm, const char *show, bool decompile, const char *dot_dir) {
    TracerState *st = tracer_state(vm);
    if (show) trace_logs_set(show);
    st->decompile = decompile;
    snprintf(st->dot_dir, sizeof st->dot_dir, "%s", dot_dir ? dot_dir : "");
}

void tracer_register(VM *vm) {
    TracerState *st = calloc(1, sizeof *st);
    EM_ASSERT(st != NULL, "out of memory");
    st->cache_size_limit = 8;
    st->explain_sink = val_null();
    st->opts.user_backend = val_null();
    vm->ext[TRACER_EXT] = st;
    vm->ext_trace[TRACER_EXT] = state_trace;
    vm->ext_free[TRACER_EXT] = state_free;
    tracer_output_init_types(vm, st);
    EM_ASSERT(tracer_compiled_fn_init_type(vm, st) == 0, "cannot create the CompiledFunction type");
    for (int m = 0; m < 2; m++) {
        NativeObj *r = native_new_closure(vm, m ? "_restore_grad_enabled" : "_restore_grad_disabled", grad_restore,
                                          val_bool(m));
        EM_ASSERT(r != NULL, "out of memory");
        st->grad_restorer[m] = val_obj(r);
    }
    NativeObj *mc = native_new_closure(vm, "_make_cell", make_cell, val_null());
    EM_ASSERT(mc != NULL, "out of memory");
    st->make_cell = val_obj(mc);
    NativeObj *ia = native_new_closure(vm, "_iter_at", iter_at, val_null());
    EM_ASSERT(ia != NULL, "out of memory");
    st->iter_at = val_obj(ia);
    tracer_register_builtin_backends();
    st->opts.backend = tracer_find_backend("eager");
    vm_register_native_module(vm, "torch._dynamo._ember", ember_module_init);
    for (const EmbeddedModule *m = tracer_lib_modules; m->name; m++)
        vm_register_library_module(vm, m->name, m->source, m->is_package);
}
