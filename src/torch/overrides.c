/* src/torch/overrides.c — __torch_function__ dispatch for the torch.* functions and the Tensor
 * methods, as PyTorch's C++ argument parser does it (torch/overrides.py documents the protocol):
 * a torch function called with an argument whose type defines __torch_function__ and is not a
 * Tensor (a plain script object such as torch.fx's Proxy, directly or inside a list/tuple
 * argument) calls
 *     type(arg).__torch_function__(func, types, args, kwargs)
 * for each overloading type in turn until one returns something other than NotImplemented.
 * For a Tensor method (`buf + proxy`, `t.mul(proxy)`) func is the public Tensor method PyTorch
 * 1.13 names: Tensor.add for __add__, Tensor.div for __truediv__, Tensor.remainder for __mod__ ...
 *
 * The torch functions (torch.*, torch._C._nn.*) are natives created by torch_overridable_new, and
 * the Tensor methods are replaced by torch_tensor_methods_overridable: trampolines closing over
 * the real natives.  The common case (no script object among the arguments) costs a scan of the
 * arguments' tags and types, no allocation. */
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
        if (tl) vm_push_root(vm, val_obj(tl));   /* popped with the rest at done */
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
    /* out=: the function runs without it and its result is written into out (out_args.c); a
     * function PyTorch gives no out refuses it (natives that take no keywords would drop it) */
    int64_t k_out = nkw ? torch_out_kw_index(kw) : -1;
    const TorchOutSpec *spec = fn->data;
    if (k_out >= 0 && !spec)
        return vm_raise(vm, vm->e_TypeError, "%s() got an unexpected keyword argument 'out'", inner->name);
    if (k_out >= 0 && spec->rule != TORCH_OUT_NATIVE) return torch_out_call(vm, spec, val_obj(inner), argc, argv, kw, k_out);
    if ((inner->flags & ARITY_MASK) && native_check_arity(vm, inner, argc, kw) < 0) return val_null();
    return inner->fn(vm, argc, argv, kw, inner);
}

/* data: the function's out= entry (out_args.c), if it takes out */
NativeObj *torch_overridable_new(VM *vm, const MethodDef *d) {
    NativeObj *inner = native_new(vm, d->name, d->fn, d->data, d->flags);
    if (!inner) return NULL;
    NativeObj *f = native_new_closure(vm, d->name, trampoline, val_obj(inner));
    if (f) f->data = (void *)torch_out_spec(d->name);
    return f;
}

/* Tensor methods: argv[0] is the tensor; the other arguments are scanned.  fn->data is the name
 * of the public method dispatched as func. */
static Value method_trampoline(ARGS) {
    NativeObj *inner = (NativeObj *)fn->payload.as.o;
    Overloads o = {.n = 0};
    int nkw = kw ? (int)kw->len : 0;
    for (int i = 1; i < argc + nkw; i++) scan(vm, argv[i], &o);
    if (__builtin_expect(o.n > 0, 0)) {
        StrObj *pub = vm_intern_str(vm, (const char *)fn->data);
        Value func = pub ? type_lookup(vm, fn->owner, pub) : val_null();
        if (val_is_null(func)) func = val_obj(fn);
        return dispatch(vm, func, &o, argc, argv, kw);
    }
    /* no Tensor method takes out= (a native taking no keywords would drop it) */
    if (nkw && torch_out_kw_index(kw) >= 0)
        return vm_raise(vm, vm->e_TypeError, "%s() got an unexpected keyword argument 'out'", inner->name);
    if ((inner->flags & ARITY_MASK) && native_check_arity(vm, inner, argc, kw) < 0) return val_null();
    return inner->fn(vm, argc, argv, kw, inner);
}

/* PyTorch 1.13's func for the Tensor dunders that dispatch under another name */
static const char *public_method_name(const char *name) {
    static const char *const map[][2] = {
        {"__add__", "add"}, {"__sub__", "sub"}, {"__mul__", "mul"}, {"__truediv__", "div"}, {"__mod__", "remainder"},
        {"__pow__", "pow"}, {"__matmul__", "matmul"}, {"__lt__", "lt"}, {"__le__", "le"}, {"__gt__", "gt"},
        {"__ge__", "ge"}, {"__eq__", "eq"}, {"__ne__", "ne"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], name) == 0) return map[i][1];
    return name;
}

int torch_tensor_methods_overridable(VM *vm, TypeObj *t) {
    ListObj *names = list_new(vm, 64);
    if (!names) return -1;
    vm_push_root(vm, val_obj(names));
    int64_t pos = 0;
    Value k, v;
    int rc = 0;
    while (rc == 0 && dict_next(t->dict, &pos, &k, &v))
        if (v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_NATIVE && ((NativeObj *)v.as.o)->owner == t &&
            (((NativeObj *)v.as.o)->flags & NATIVEF_METHOD) && ((NativeObj *)v.as.o)->fn != method_trampoline)
            rc = list_append(vm, names, k);
    for (int64_t i = 0; rc == 0 && i < names->len; i++) {
        NativeObj *inner = (NativeObj *)dict_get_str(t->dict, AS_STR(names->items[i])).as.o;
        NativeObj *tr = native_new_closure(vm, inner->name, method_trampoline, val_obj(inner));
        if (!tr) {
            rc = -1;
            break;
        }
        tr->flags = NATIVEF_METHOD;
        tr->owner = t;
        tr->data = (void *)public_method_name(inner->name);
        rc = dict_set(vm, t->dict, names->items[i], val_obj(tr));
    }
    vm_pop_root(vm);
    type_modified(vm, t);
    return rc;
}

/* torch._C._has_torch_function(args) / _has_torch_function_unary(arg) /
 * _has_torch_function_variadic(*args): the test Python-level torch functions make before
 * handle_torch_function (torch.overrides) */
static Value f_has_torch_function(ARGS) {
    if (native_check_args(vm, "_has_torch_function", argc, kw, 1, 1) < 0) return val_null();
    Overloads o = {.n = 0};
    Value v = argv[0];
    if (v.tag == VAL_OBJ && (v.as.o->type == vm->t_tuple || v.as.o->type == vm->t_list)) {
        Value *items = v.as.o->type == vm->t_list ? AS_LIST(v)->items : AS_TUPLE(v)->items;
        int64_t n = v.as.o->type == vm->t_list ? AS_LIST(v)->len : AS_TUPLE(v)->len;
        for (int64_t i = 0; i < n && !o.n; i++) check_value(vm, items[i], &o);
    } else {
        Value it = vm_call1(vm, val_obj(vm->t_tuple), v);
        if (val_is_null(it)) return it;
        for (int64_t i = 0; i < AS_TUPLE(it)->len && !o.n; i++) check_value(vm, AS_TUPLE(it)->items[i], &o);
    }
    return val_bool(o.n > 0);
}

static Value f_has_torch_function_unary(ARGS) {
    if (native_check_args(vm, "_has_torch_function_unary", argc, kw, 1, 1) < 0) return val_null();
    Overloads o = {.n = 0};
    check_value(vm, argv[0], &o);
    return val_bool(o.n > 0);
}

static Value f_has_torch_function_variadic(ARGS) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "_has_torch_function_variadic() takes no keyword arguments");
    Overloads o = {.n = 0};
    for (int i = 0; i < argc && !o.n; i++) check_value(vm, argv[i], &o);
    return val_bool(o.n > 0);
}

int torch_overrides_init(VM *vm, Value cmod) {
    static const MethodDef fns[] = {
        {"_has_torch_function", f_has_torch_function},
        {"_has_torch_function_unary", f_has_torch_function_unary},
        {"_has_torch_function_variadic", f_has_torch_function_variadic},
        {NULL}};
    return module_add_functions(vm, cmod, fns);
}

int torch_add_overridable(VM *vm, Value module, const MethodDef *defs) {
    for (const MethodDef *d = defs; d->name; d++) {
        NativeObj *f = torch_overridable_new(vm, d);
        if (!f || module_set(vm, module, d->name, val_obj(f)) < 0) return -1;
    }
    return 0;
}
