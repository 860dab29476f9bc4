/* src/tracer/builtins.c — builtins and builtin types evaluated on trackers (len, isinstance,
 * getattr/hasattr/setattr, min/max/sum, list/tuple/dict, enumerate/zip, super, ...), and the
 * registries the tracer consults: which natives are torch functions, which are pure, which
 * classes are grad-mode context managers, whether global module hooks exist. */
#include <string.h>

#include "src/torch/module.h"
#include "src/tracer/tracer.h"
#include "vm/dict.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"

static bool is(const char *a, const char *b) { return strcmp(a, b) == 0; }
static int nkw_of(TupleObj *kw) { return kw ? (int)kw->len : 0; }

/* ---- helpers ---------------------------------------------------------------------------------------- */

static VT *arg_const(Tracer *tr, VT *v) { return tr_specialize(tr, vt_force(tr, v)); }

static bool holds_symbolic(Tracer *tr, VT *v, int depth) {
    v = vt_force(tr, v);
    if (v->kind == VT_SYMNUM) return true;
    if ((v->kind == VT_LIST || v->kind == VT_TUPLE || v->kind == VT_DICT) && depth < 8)
        for (int i = 0; i < v->n; i++)
            if (holds_symbolic(tr, v->items[i], depth + 1)) return true;
    return false;
}

/* Fold a builtin on constants.  Containers of symbolic numbers are not specialised (that would
 * recompile on every new value): the call runs natively instead. */
static TxStatus fold(Tracer *tr, Value f, int argc, VT **args, TupleObj *kw, VT **out) {
    VM *vm = tr->vm;
    int total = argc + nkw_of(kw);
    for (int i = 0; i < total; i++) {
        VT *a = vt_force(tr, args[i]);
        if (a->kind != VT_SYMNUM && holds_symbolic(tr, a, 0)) return trace_break(tr, "a builtin on symbolic numbers");
    }
    Value *vals = trace_arena_alloc(&tr->arena, sizeof(Value) * (size_t)(total + 1));
    for (int i = 0; i < total; i++) {
        VT *a = arg_const(tr, args[i]);
        vals[i] = vt_as_constant(tr, a);
        if (val_is_null(vals[i])) return trace_break(tr, "builtin call with a non-constant argument (%s)", vt_kind_name(a->kind));
    }
    Value r = vm_call(vm, f, argc, vals, kw);
    if (val_is_null(r)) {
        vm_clear_exc(vm);
        return trace_break(tr, "builtin call on constants raised");
    }
    *out = vt_from_value(tr, r, NULL);
    return TX_OK;
}

static TxStatus isinstance_of(Tracer *tr, VT *obj, VT *cls, bool *out) {
    VM *vm = tr->vm;
    cls = vt_force(tr, cls);
    if (cls->kind == VT_TUPLE || (cls->kind == VT_CONST && val_is_type(vm, cls->value, vm->t_tuple))) {
        int n = cls->kind == VT_TUPLE ? cls->n : (int)AS_TUPLE(cls->value)->len;
        for (int i = 0; i < n; i++) {
            VT *c = cls->kind == VT_TUPLE ? vt_item(tr, cls, i) : vt_from_value(tr, AS_TUPLE(cls->value)->items[i], NULL);
            TxStatus s = isinstance_of(tr, obj, c, out);
            if (s) return s;
            if (*out) return TX_OK;
        }
        *out = false;
        return TX_OK;
    }
    if (cls->kind != VT_TYPE) return trace_break(tr, "isinstance with %s", vt_kind_name(cls->kind));
    TypeObj *t = vt_python_type(tr, obj);
    if (!t) return trace_break(tr, "isinstance of an object of unknown type");
    *out = t == (TypeObj *)cls->value.as.o || type_is_subtype(t, (TypeObj *)cls->value.as.o);
    return TX_OK;
}

static TxStatus sym_call(Tracer *tr, SymOp op, Value f, VT *a, VT **out) {
    VM *vm = tr->vm;
    Value r = vm_call1(vm, f, a->value);
    if (val_is_null(r)) {
        vm_clear_exc(vm);
        return trace_break(tr, "conversion of a number raised");
    }
    VT *v = vt_new(tr, VT_SYMNUM);
    v->sym = op;
    v->a = a;
    v->value = r;
    trace_keep(tr, r);
    *out = v;
    return TX_OK;
}

/* str(e) / repr(e) of an exception made in the region: the real one's, built from its args
 * (specialised: constants) */
static TxStatus exception_text(Tracer *tr, Value f, VT *e, VT **out) {
    VM *vm = tr->vm;
    VT *a = vt_force(tr, e->a);
    int n = a->n;
    Value *argv = trace_arena_alloc(&tr->arena, sizeof(Value) * (size_t)(n + 2));
    argv[0] = e->cls->value;
    for (int i = 0; i < n; i++) {
        argv[i + 1] = vt_as_constant(tr, tr_specialize(tr, vt_item(tr, a, i)));
        if (val_is_null(argv[i + 1])) return trace_break(tr, "text of an exception with non-constant args");
    }
    Value real = vm_call(vm, dict_get_c(vm, vm->e_BaseException->dict, "__new__"), n + 1, argv, NULL);
    if (val_is_null(real)) return trace_error(tr);
    trace_keep(tr, real);
    Value r = vm_call1(vm, f, real);
    if (val_is_null(r)) return trace_error(tr);
    *out = vt_const(tr, r);
    return TX_OK;
}

/* ---- builtin functions --------------------------------------------------------------------------------- */

/* callable(v) */
TxStatus tr_callable(Tracer *tr, VT *v, int *out) {
    VM *vm = tr->vm;
    v = vt_force(tr, v);
    switch (v->kind) {
    case VT_FUNCTION: case VT_METHOD: case VT_NATIVE: case VT_TYPE: case VT_NN_MODULE: case VT_PARTIAL:
        *out = 1;
        return TX_OK;
    case VT_CONST: case VT_TENSOR: case VT_LIST: case VT_TUPLE: case VT_DICT: case VT_SYMNUM: case VT_SET:
        *out = 0;
        return TX_OK;
    default: {
        /* an instance: whether its class defines __call__ */
        TypeObj *t = vt_python_type(tr, v);
        if (!t) return trace_break(tr, "callable(%s)", vt_kind_name(v->kind));
        *out = !val_is_null(type_lookup(vm, t, vm->special_names[SP_CALL]));
        return TX_OK;
    }
    }
}

TxStatus tracer_builtin_call(Tracer *tr, NativeObj *n, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    Value f = val_obj(n);
    Value b = dict_get_c(vm, vm->builtins, n->name);
    if (val_is_null(b) || !val_identical(b, f)) return trace_break(tr, "call to native %s", n->name);
    const char *name = n->name;
    int nkw = nkw_of(kwnames);
    TxStatus s;
    if (is(name, "print")) return trace_break(tr, "call to print");
    if (is(name, "len") && argc == 1 && !nkw) {
        VT *v = vt_force(tr, args[0]);
        switch (v->kind) {
        case VT_LIST: case VT_TUPLE: case VT_DICT: *out = vt_const(tr, val_int(v->n)); return TX_OK;
        case VT_DICT_VIEW: *out = vt_const(tr, val_int(vt_force(tr, v->a)->n)); return TX_OK;
        case VT_SET: *out = vt_const(tr, val_int(v->n)); return TX_OK;
        case VT_TENSOR:
            if (!v->node->is_tensor || v->node->meta.ndim == 0) return trace_break(tr, "len() of a 0-d tensor");
            *out = vt_const(tr, val_int(v->node->meta.shape[0]));
            return TX_OK;
        case VT_NN_MODULE: {
            VT *children;
            if ((s = tr_module_children(tr, v, &children))) return s;
            *out = vt_const(tr, val_int(children->n));
            return TX_OK;
        }
        default: return fold(tr, f, argc, args, kwnames, out);
        }
    }
    if ((is(name, "isinstance") || is(name, "issubclass")) && argc == 2 && !nkw) {
        bool r;
        if (is(name, "isinstance")) {
            if ((s = isinstance_of(tr, args[0], args[1], &r))) return s;
        } else {
            VT *c = vt_force(tr, args[0]);
            if (c->kind != VT_TYPE) return trace_break(tr, "issubclass of %s", vt_kind_name(c->kind));
            VT *as_obj = vt_new(tr, VT_TYPE);
            (void)as_obj;
            VT *cls = vt_force(tr, args[1]);
            if (cls->kind != VT_TYPE) return trace_break(tr, "issubclass with %s", vt_kind_name(cls->kind));
            TypeObj *a = (TypeObj *)c->value.as.o, *bt = (TypeObj *)cls->value.as.o;
            r = a == bt || type_is_subtype(a, bt);
        }
        *out = vt_const(tr, val_bool(r));
        return TX_OK;
    }
    if ((is(name, "getattr") || is(name, "hasattr")) && (argc == 2 || (argc == 3 && is(name, "getattr"))) && !nkw) {
        VT *nm = arg_const(tr, args[1]);
        if (nm->kind != VT_CONST || !val_is_str(vm, nm->value)) return trace_break(tr, "%s with a non-constant name", name);
        StrObj *attr = str_intern(vm, AS_STR(nm->value));
        VT *obj = vt_force(tr, args[0]);
        VT *r;
        bool pending = se_load_attr(tr, obj, attr) != NULL;
        if ((s = tr_getattr_opt(tr, obj, attr, &r))) return s;
        if (is(name, "hasattr")) {
            if (obj->source && !pending && (obj->kind == VT_OBJECT || obj->kind == VT_NN_MODULE))
                guard_hasattr(tr, obj->source, attr, r != NULL);
            *out = vt_const(tr, val_bool(r != NULL));
            return TX_OK;
        }
        if (!r) {
            if (argc == 3) {
                *out = args[2];
                return TX_OK;
            }
            return trace_break(tr, "AttributeError in getattr");
        }
        *out = r;
        return TX_OK;
    }
    if ((is(name, "setattr") && argc == 3) || (is(name, "delattr") && argc == 2)) {
        VT *nm = arg_const(tr, args[1]);
        if (nm->kind != VT_CONST || !val_is_str(vm, nm->value)) return trace_break(tr, "%s with a non-constant name", name);
        StrObj *attr = str_intern(vm, AS_STR(nm->value));
        s = argc == 3 ? tr_setattr(tr, args[0], attr, args[2]) : tr_delattr(tr, args[0], attr);
        if (s) return s;
        *out = vt_none(tr);
        return TX_OK;
    }
    if (is(name, "callable") && argc == 1) {
        int c;
        if ((s = tr_callable(tr, args[0], &c))) return s;
        *out = vt_const(tr, val_bool(c));
        return TX_OK;
    }
    if (is(name, "iter") && argc == 1) return tr_iter(tr, args[0], out);
    if (is(name, "next") && (argc == 1 || argc == 2)) {
        VT *r;
        if ((s = tr_next(tr, args[0], &r))) return s;
        if (!r) {
            if (argc == 2) {
                *out = args[1];
                return TX_OK;
            }
            return trace_break(tr, "StopIteration");
        }
        *out = r;
        return TX_OK;
    }
    if ((is(name, "min") || is(name, "max") || is(name, "sum") || is(name, "any") || is(name, "all") ||
         is(name, "sorted")) && argc >= 1) {
        /* over trackers: min/max need constants; sum adds (tensors too) */
        VT *items;
        if (argc == 1) {
            if ((s = tr_iter_items(tr, args[0], &items))) return s;
        } else {
            items = vt_tuple(tr, args, argc);
        }
        if (is(name, "sum") && !nkw) {
            VT *acc = argc == 2 ? args[1] : vt_const(tr, val_int(0));
            if (argc > 2) return trace_break(tr, "sum() arguments");
            if (argc == 2) {
                if ((s = tr_iter_items(tr, args[0], &items))) return s;
            }
            for (int i = 0; i < items->n; i++)
                if ((s = tr_binary(tr, BINOP_ADD, acc, vt_item(tr, items, i), &acc))) return s;
            *out = acc;
            return TX_OK;
        }
        VT *arg = vt_list(tr, items->items, items->n);
        VT *one[1] = {arg};
        return fold(tr, f, 1, one, NULL, out);
    }
    if (is(name, "repr") && argc == 1 && !nkw && vt_force(tr, args[0])->kind == VT_EXCEPTION)
        return exception_text(tr, f, vt_force(tr, args[0]), out);
    if ((is(name, "int") || is(name, "float") || is(name, "str") || is(name, "abs")) && argc == 1 && !nkw) {
        VT *v = vt_force(tr, args[0]);
        if (v->kind == VT_SYMNUM)
            return sym_call(tr, is(name, "int") ? SYM_INT : is(name, "float") ? SYM_FLOAT : is(name, "str") ? SYM_STR : SYM_ABS,
                            f, v, out);
        if (v->kind == VT_TENSOR) {
            if (is(name, "abs")) return fake_unary(tr, -1, v, out);
            return trace_break(tr, "%s() of a tensor reads its data", name);
        }
    }
    if (is(name, "round") && (argc == 1 || argc == 2) && !nkw && vt_force(tr, args[0])->kind == VT_SYMNUM) {
        VT *a = vt_force(tr, args[0]);
        VT *nd = argc == 2 ? tr_specialize(tr, args[1]) : NULL;
        if (nd && nd->kind != VT_CONST) return trace_break(tr, "round() with a non-constant ndigits");
        Value r = nd ? vm_call2(vm, f, a->value, nd->value) : vm_call1(vm, f, a->value);
        if (val_is_null(r)) {
            vm_clear_exc(vm);
            return trace_break(tr, "round() raised");
        }
        VT *v = vt_new(tr, VT_SYMNUM);
        v->sym = SYM_ROUND;
        v->a = a;
        v->b = nd;
        v->value = r;
        trace_keep(tr, r);
        *out = v;
        return TX_OK;
    }
    if (is(name, "id") && argc == 1 && !nkw) {
        /* an object that exists outside the region: its id now, with its identity guarded */
        VT *v = vt_force(tr, args[0]);
        if (v->kind != VT_CONST && v->kind != VT_SYMNUM && v->kind != VT_TUPLE && v->mut != MUT_NEW &&
            !val_is_null(v->value) && v->value.tag == VAL_OBJ && (v->kind != VT_TENSOR || v->source)) {
            Value r = vm_call1(vm, f, v->value);
            if (val_is_null(r)) return trace_error(tr);
            if (v->source) guard_id(tr, v->source, v->value);
            *out = vt_const(tr, r);
            return TX_OK;
        }
    }
    if (is(name, "id") || is(name, "hash")) {
        if (argc == 1 && !nkw && vt_force(tr, args[0])->kind == VT_CONST) return fold(tr, f, argc, args, kwnames, out);
        return trace_break(tr, "%s() of a non-constant", name);
    }
    /* everything else: only on constants */
    static const char *const pure[] = {"abs", "round", "divmod", "pow", "repr", "ord", "chr", "bin", "hex", "oct",
                                       "format", "ascii", "hash", "int", "float", "str", "bool", "len", NULL};
    for (const char *const *p = pure; *p; p++)
        if (is(name, *p)) return fold(tr, f, argc, args, kwnames, out);
    return trace_break(tr, "call to builtin %s", name);
}

/* ---- builtin types ---------------------------------------------------------------------------------------- */

TxStatus tracer_builtin_type_call(Tracer *tr, TypeObj *t, int argc, VT **args, TupleObj *kwnames, VT **out,
                                  bool *handled) {
    VM *vm = tr->vm;
    int nkw = nkw_of(kwnames);
    TxStatus s;
    *handled = true;
    if ((t == vm->t_list || t == vm->t_tuple) && argc <= 1 && !nkw) {
        VT *items;
        if (argc == 0) items = vt_tuple(tr, NULL, 0);
        else if ((s = tr_iter_items(tr, args[0], &items))) return s;
        *out = t == vm->t_list ? vt_list(tr, items->items, items->n) : vt_tuple(tr, items->items, items->n);
        return TX_OK;
    }
    if (t == vm->t_set && argc <= 1 && !nkw) return tr_set_from_iterable(tr, argc ? args[0] : NULL, out);
    if (t == vm->t_frozenset && argc == 1 && !nkw && vt_force(tr, args[0])->kind == VT_SET) {
        VT *s;
        if ((s = NULL, tr_set_from_iterable(tr, args[0], &s))) return TX_BREAK;
        if (val_is_null(s->shadow)) return trace_break(tr, "a frozenset of objects");
        Value fz = vm_call1(vm, val_obj(vm->t_frozenset), s->shadow);
        if (val_is_null(fz)) return trace_error(tr);
        *out = vt_const(tr, fz);
        return TX_OK;
    }
    if (t == vm->t_dict) {
        VT *d = vt_dict(tr);
        if (argc == 1) {
            VT *src = vt_force(tr, args[0]);
            if (src->kind == VT_DICT) {
                for (int i = 0; i < src->n; i++) vt_dict_set(tr, d, src->keys[i], vt_item(tr, src, i));
            } else {
                VT *pairs;
                if ((s = tr_iter_items(tr, src, &pairs))) return s;
                for (int i = 0; i < pairs->n; i++) {
                    VT *kv[2];
                    if ((s = tr_unpack(tr, vt_item(tr, pairs, i), 2, kv))) return s;
                    vt_dict_set(tr, d, tr_specialize(tr, kv[0]), kv[1]);
                }
            }
        } else if (argc > 1) {
            return trace_break(tr, "dict() arguments");
        }
        for (int i = 0; i < nkw; i++) vt_dict_set(tr, d, vt_const(tr, kwnames->items[i]), args[argc + i]);
        *out = d;
        return TX_OK;
    }
    if (t == vm->t_enumerate || t == vm->t_zip || t == vm->t_map || t == vm->t_filter) {
        /* lazy, over the arguments' iterators, stepped by tr_next as CPython steps them: a
         * list the loop appends to keeps yielding (codegen rebuilds them at breaks) */
        if (nkw) return trace_break(tr, "%s() with keywords", t->name->data);
        VT *it;
        if (t == vm->t_enumerate) {
            if (argc < 1 || argc > 2) return trace_break(tr, "enumerate() arguments");
            VT *st = argc == 2 ? arg_const(tr, args[1]) : vt_const(tr, val_int(0));
            if (st->kind != VT_CONST || !val_is_intlike(st->value)) return trace_break(tr, "enumerate start");
            it = vt_iter(tr, ITER_ENUMERATE);
            if ((s = tr_iter(tr, args[0], &it->a))) return s;
            it->b = st;
        } else if (t == vm->t_filter) {
            if (argc != 2) return trace_break(tr, "filter() arguments");
            it = vt_iter(tr, ITER_FILTER);
            it->b = args[0];
            if ((s = tr_iter(tr, args[1], &it->a))) return s;
        } else {
            int first = t == vm->t_map;
            if (first && argc < 2) return trace_break(tr, "map() must have at least two arguments.");
            it = vt_iter(tr, first ? ITER_MAP : ITER_ZIP);
            if (first) it->b = args[0];
            it->items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(argc + 1));
            for (int i = first; i < argc; i++)
                if ((s = tr_iter(tr, args[i], &it->items[i - first]))) return s;
            it->n = argc - first;
        }
        *out = it;
        return TX_OK;
    }
    if (t == vm->t_reversed) {
        if (nkw || argc != 1) return trace_break(tr, "reversed() arguments");
        VT *items;
        if ((s = tr_iter_items(tr, args[0], &items))) return s;
        VT **rev = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(items->n + 1));
        for (int i = 0; i < items->n; i++) rev[i] = vt_item(tr, items, items->n - 1 - i);
        VT *it = vt_iter(tr, ITER_SEQ);
        it->a = vt_tuple(tr, rev, items->n);
        *out = it;
        return TX_OK;
    }
    if (t == vm->t_super) {
        if (argc == 2) {
            VT *cls = vt_force(tr, args[0]);
            if (cls->kind != VT_TYPE) return trace_break(tr, "super() arguments");
            VT *sup = vt_new(tr, VT_SUPER);
            sup->value = cls->value;
            sup->a = vt_force(tr, args[1]);
            *out = sup;
            return TX_OK;
        }
        if (argc != 0) return trace_break(tr, "super() arguments");
        /* zero-argument super(): the __class__ cell and the first argument of the calling frame */
        Tx *tx = tr->tx;
        CodeObj *co = tx->code;
        int idx = -1;
        for (int64_t i = 0; i < co->freevars->len; i++)
            if (strcmp(AS_STR(co->freevars->items[i])->data, "__class__") == 0) idx = (int)(co->cellvars->len + i);
        if (idx < 0 || co->argcount < 1) return trace_break(tr, "super(): no arguments");
        VT *cell = tx->locals[co->nlocals + idx];
        if (!cell && tx == tr->root && tx->func && tx->func->closure) {
            int fi = idx - (int)co->cellvars->len;
            cell = vt_from_value(tr, tx->func->closure->items[fi], NULL);
        }
        if (!cell) return trace_break(tr, "super(): __class__ cell missing");
        Value cls;
        if (cell->mut == MUT_NEW) cls = cell->a ? cell->a->value : val_null();
        else cls = val_is_null(cell->value) ? val_null() : ((CellObj *)cell->value.as.o)->v;
        if (val_is_null(cls)) return trace_break(tr, "super(): empty __class__ cell");
        VT *self = tx->locals[0];
        if (!self && tx == tr->root) {
            Value real = tr->frame->localsplus[0];
            if (!val_is_null(real)) self = vt_from_value(tr, real, source_local(tr, 0, AS_STR(co->varnames->items[0])));
            tx->locals[0] = self;
        }
        if (!self) return trace_break(tr, "super(): self missing");
        VT *sup = vt_new(tr, VT_SUPER);
        sup->value = cls;
        sup->a = vt_force(tr, self);
        *out = sup;
        return TX_OK;
    }
    if (t == vm->t_type && argc == 1 && !nkw) {
        TypeObj *ty = vt_python_type(tr, args[0]);
        if (!ty) return trace_break(tr, "type() of %s", vt_kind_name(vt_force(tr, args[0])->kind));
        *out = vt_from_value(tr, val_obj(ty), NULL);
        return TX_OK;
    }
    if (t == vm->t_str && argc == 1 && !nkw && vt_force(tr, args[0])->kind == VT_EXCEPTION)
        return exception_text(tr, val_obj(t), vt_force(tr, args[0]), out);
    if ((t == vm->t_int || t == vm->t_float || t == vm->t_str || t == vm->t_bool) && argc == 1 && !nkw) {
        VT *v = vt_force(tr, args[0]);
        if (v->kind == VT_SYMNUM && t != vm->t_bool)
            return sym_call(tr, t == vm->t_int ? SYM_INT : t == vm->t_float ? SYM_FLOAT : SYM_STR, val_obj(t), v, out);
        if (v->kind == VT_TENSOR) return trace_break(tr, "%s() of a tensor reads its data", t->name->data);
        if (t == vm->t_bool) {
            int r;
            if ((s = tr_truthy(tr, v, &r))) return s;
            *out = vt_const(tr, val_bool(r));
            return TX_OK;
        }
        return fold(tr, val_obj(t), argc, args, kwnames, out);
    }
    if (t == vm->t_range || t == vm->t_slice || t == vm->t_int || t == vm->t_float || t == vm->t_str ||
        t == vm->t_bool || (torch_state(vm) && t == torch_state(vm)->t_size) || t == vm->t_frozenset)
        return fold(tr, val_obj(t), argc, args, kwnames, out);
    *handled = false;
    return TX_OK;
}
