/* src/torch/overrides.c — __torch_function__ dispatch for the torch.* functions, as PyTorch's
 * C++ argument parser does it (torch/overrides.py documents the protocol): a torch function
 * called with an argument whose type defines __torch_function__ and is not a Tensor (a plain
 * script object such as torch.fx's Proxy, directly or inside a list/tuple argument) calls
 *     type(arg).__torch_function__(func, types, args, kwargs)
 * for each overloading type in turn until one returns something other than NotImplemented.
 *
 * The torch functions (torch.*, torch._C._nn.*) are natives created by torch_overridable_new: a
 * trampoline closing over the real native.  The common case (no script object among the
 * arguments) costs a scan of the arguments' tags and types, no allocation. */
#include <string.h>

#include "src/torch/torch.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* Overloading types found among the arguments, in order of first appearance. */
enum { MAX_OVERLOADS = 8 };
typedef struct Overloads {
    TypeObj *types[MAX_OVERLOADS];
    int n;
} Overloads;

static StrObj *torch_function_name(VM *vm) { return vm_intern_str(vm, "__torch_function__"); }

static void check_value(VM *vm, Value v, Overloads *o) {
    if (v.tag != VAL_OBJ) return;
    TypeObj *t = v.as.o->type;
    if (t->layout != OBJ_LAYOUT_INSTANCE) return;   /* tensors, containers, natives ... */
    for (int i = 0; i < o->n; i++)
        if (o->types[i] == t) return;
    StrObj *name = torch_function_name(vm);
    if (!name || val_is_null(type_lookup(vm, t, name))) return;
    if (o->n < MAX_OVERLOADS) o->types[o->n++] = t;
}

static void scan(VM *vm, Value v, Overloads *o) {
    if (v.tag != VAL_OBJ) return;
    TypeObj *t = v.as.o->type;
    if (t == vm->t_list || t == vm->t_tuple) {
        Value *items = t == vm->t_list ? AS_LIST(v)->items : AS_TUPLE(v)->items;
        int64_t n = t == vm->t_list ? AS_LIST(v)->len : AS_TUPLE(v)->len;
        for (int64_t i = 0; i < n; i++) check_value(vm, items[i], o);
        return;
    }
    check_value(vm, v, o);
}

/* type(arg).__torch_function__(func, types, args, kwargs) for each overloading type. */
static Value dispatch(VM *vm, Value func, const Overloads *o, int argc, Value *argv, TupleObj *kw) {
    int base = vm->roots.n;
    Value r = val_null();
    TupleObj *types = tuple_new(vm, o->n);
    if (!types) goto done;
    for (int i = 0; i < o->n; i++) types->items[i] = val_obj(o->types[i]);
    vm_push_root(vm, val_obj(types));
    TupleObj *args = tuple_from_array(vm, argv, argc);
    if (!args) goto done;
    vm_push_root(vm, val_obj(args));
    DictObj *kwargs = dict_new(vm);
    if (!kwargs) goto done;
    vm_push_root(vm, val_obj(kwargs));
    for (int64_t k = 0; kw && k < kw->len; k++)
        if (dict_set(vm, kwargs, kw->items[k], argv[argc + k]) < 0) goto done;
    for (int i = 0; i < o->n; i++) {
        Value tf = vm_getattr(vm, val_obj(o->types[i]), torch_function_name(vm));
        if (val_is_null(tf)) goto done;
        vm_push_root(vm, tf);
        Value cargs[4] = {func, val_obj(types), val_obj(args), val_obj(kwargs)};
        r = vm_call(vm, tf, 4, cargs, NULL);
        vm_pop_root(vm);
        if (val_is_null(r) || !val_identical(r, vm->not_implemented)) goto done;
    }
    {
        ListObj *tl = list_from_array(vm, types->items, types->len);
        Value tr = tl ? vm_repr(vm, val_obj(tl)) : val_null();
        NativeObj *n = (NativeObj *)func.as.o;
        r = val_is_null(tr) ? tr
                            : vm_raise(vm, vm->e_TypeError,
                                       "no implementation found for 'torch.%s' on types that implement "
                                       "__torch_function__: %s",
                                       n->name, AS_STR(tr)->data);
    }
done:
    vm->roots.n = base;
    return r;
}

static Value trampoline(ARGS) {
    NativeObj *inner = (NativeObj *)fn->payload.as.o;
    Overloads o = {.n = 0};
    int nkw = kw ? (int)kw->len : 0;
    for (int i = 0; i < argc + nkw; i++) scan(vm, argv[i], &o);
    if (__builtin_expect(o.n > 0, 0)) return dispatch(vm, val_obj(fn), &o, argc, argv, kw);
    if ((inner->flags & ARITY_MASK) && native_check_arity(vm, inner, argc, kw) < 0) return val_null();
    return inner->fn(vm, argc, argv, kw, inner);
}

NativeObj *torch_overridable_new(VM *vm, const MethodDef *d) {
    NativeObj *inner = native_new(vm, d->name, d->fn, d->data, d->flags);
    if (!inner) return NULL;
    return native_new_closure(vm, d->name, trampoline, val_obj(inner));
}

int torch_add_overridable(VM *vm, Value module, const MethodDef *defs) {
    for (const MethodDef *d = defs; d->name; d++) {
        NativeObj *f = torch_overridable_new(vm, d);
        if (!f || module_set(vm, module, d->name, val_obj(f)) < 0) return -1;
    }
    return 0;
}
