/* src/tracer/compiled_fn.c — what torch.compile(fn) returns: a callable that runs fn with the
 * tracer's eval-frame hook installed and its compile options.  A native type rather than a
 * script closure, because it is on every compiled call: one C call, no wrapper frame, no
 * args tuple or kwargs dict.  It binds like a function when it is a class attribute
 * (@torch.compile on a method) and has an instance __dict__, so the library sets __wrapped__,
 * __name__, __qualname__ and __doc__ on it as functools.wraps would. */
#include <stdio.h>

#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define CF(v) ((CompiledFnObj *)(v).as.o)

static void cf_trace(VM *vm, Obj *o) {
    CompiledFnObj *c = (CompiledFnObj *)o;
    gc_mark(vm, c->dict);
    gc_mark_value(vm, c->fn);
    gc_mark_value(vm, c->opts.user_backend);
}

static Value cf_call(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)fn;
    CompiledFnObj *c = CF(argv[0]);
    return tracer_run_compiled_vec(vm, c->fn, argc - 1, argv + 1, kw, &c->opts);
}

static Value cf_get(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)kw, (void)fn;
    if (argc < 2 || val_is_none(argv[1])) return argv[0];
    return vm_bound_method_new(vm, argv[0], argv[1]);
}

static Value cf_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argc, (void)kw, (void)fn;
    /* as the functools.wraps wrapper PyTorch returns prints: the original's name */
    return vm_repr(vm, CF(argv[0])->fn);
}

Value tracer_compiled_fn_new(VM *vm, Value fn, const CompileOptions *opts) {
    TracerState *st = tracer_state(vm);
    vm_push_root(vm, fn);
    vm_push_root(vm, opts->user_backend);
    CompiledFnObj *c = gc_alloc(vm, st->t_compiled_fn, sizeof(CompiledFnObj));
    vm_pop_roots(vm, 2);
    if (!c) return val_null();
    c->fn = fn;
    c->opts = *opts;
    return val_obj(c);
}

int tracer_compiled_fn_init_type(VM *vm, TracerState *st) {
    st->t_compiled_fn = type_new_builtin(vm, "CompiledFunction", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(CompiledFnObj),
                                         offsetof(CompiledFnObj, dict), cf_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!st->t_compiled_fn) return -1;
    static const MethodDef methods[] = {
        {"__call__", cf_call, NATIVEF_METHOD}, {"__get__", cf_get, NATIVEF_METHOD}, {"__repr__", cf_repr, NATIVEF_METHOD}, {NULL}};
    return type_add_methods(vm, st->t_compiled_fn, methods);
}
