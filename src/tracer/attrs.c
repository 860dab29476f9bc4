/* src/tracer/attrs.c — attribute access on trackers: loads (with read-after-write of pending
 * stores, instance dicts, nn.Module parameter/buffer/module dicts, class attributes, inlined
 * property getters and __getattr__), LOAD_METHOD, stores and deletions (recorded as side
 * effects on objects whose __setattr__ is the default one), and tensor attributes. */
#include <string.h>

#include "ember/autograd.h"
#include "src/torch/module.h"
#include "src/tracer/tracer.h"
#include "vm/dict.h"
#include "vm/seq.h"
#include "vm/str.h"

static bool is_name(StrObj *s, const char *c) { return strcmp(s->data, c) == 0; }

static VT *method_vt(Tracer *tr, VT *self, VT *fn, StrObj *name) {
    VT *m = vt_new(tr, VT_METHOD);
    m->a = self;
    m->b = fn;
    m->user_name = name;
    return m;
}

/* A class attribute found on type t, bound to obj as attribute access would bind it. */
static TxStatus bind_class_attr(Tracer *tr, VT *obj, TypeObj *t, Value descr, StrObj *name, VT **out) {
    VM *vm = tr->vm;
    if (descr.tag == VAL_OBJ) {
        TypeObj *dt = descr.as.o->type;
        if (dt == vm->t_function || !val_is_null(tracer_compiled_fn_wrapped(vm, descr))) {
            /* a function, or torch.compile of one (it binds like one) */
            *out = method_vt(tr, obj, vt_from_value(tr, descr, NULL), name);
            return TX_OK;
        }
        if (dt == vm->t_staticmethod) {
            *out = vt_from_value(tr, ((WrapperObj *)descr.as.o)->func, NULL);
            return TX_OK;
        }
        if (dt == vm->t_classmethod) {
            *out = method_vt(tr, vt_from_value(tr, val_obj(t), NULL), vt_from_value(tr, ((WrapperObj *)descr.as.o)->func, NULL),
                             name);
            return TX_OK;
        }
        if (dt->layout == OBJ_LAYOUT_NATIVE) {
            NativeObj *n = (NativeObj *)descr.as.o;
            if (n->flags & NATIVEF_METHOD) {
                *out = method_vt(tr, obj, vt_from_value(tr, descr, NULL), name);
                return TX_OK;
            }
            *out = vt_from_value(tr, descr, NULL);
            return TX_OK;
        }
        if (dt == vm->t_property || vm_is_data_descriptor(vm, descr)) {
            if (dt == vm->t_property) {
                PropertyObj *p = (PropertyObj *)descr.as.o;
                if (p->fget.tag == VAL_OBJ && p->fget.as.o->type == vm->t_function) {
                    VT *args[1] = {obj};
                    return tr_call(tr, vt_from_value(tr, p->fget, NULL), 1, args, NULL, out);
                }
            }
            return trace_break(tr, "attribute '%s' is a descriptor the tracer cannot read", name->data);
        }
    }
    *out = vt_from_value(tr, descr, obj->source ? source_attr(tr, obj->source, name) : NULL);
    return TX_OK;
}

/* ---- tensors -------------------------------------------------------------------------------------- */

static TxStatus tensor_attr(Tracer *tr, VT *t, StrObj *name, VT **out) {
    VM *vm = tr->vm;
    static const char *const meta_attrs[] = {"shape", "dtype", "device", "ndim", "is_cuda", "is_cpu", "is_sparse",
                                             "is_quantized", "is_meta", "layout", NULL};
    for (const char *const *p = meta_attrs; *p; p++)
        if (is_name(name, *p)) {
            Value r = vm_getattr(vm, t->fake, name);
            if (val_is_null(r)) {
                vm_clear_exc(vm);
                return trace_break(tr, "tensor.%s", name->data);
            }
            *out = vt_const(tr, r);
            return TX_OK;
        }
    if (is_name(name, "requires_grad")) {
        *out = vt_const(tr, val_bool(t->node->requires_grad));
        return TX_OK;
    }
    if (is_name(name, "is_leaf")) {
        *out = vt_const(tr, val_bool(ag_is_leaf(torch_tensor_of(t->fake))));
        return TX_OK;
    }
    if (is_name(name, "grad")) {
        if (!t->source || val_is_null(t->value)) return trace_break(tr, "the .grad of a tensor made in the region");
        Value g = trace_static_getattr(vm, t->value, name);
        if (val_is_null(g)) g = val_none();
        *out = vt_from_value(tr, g, source_attr(tr, t->source, name));
        return TX_OK;
    }
    if (is_name(name, "data")) {
        Value detach = type_lookup(vm, torch_state(vm)->t_tensor, vm_intern_str(vm, "detach"));
        VT *args[1] = {t};
        return fake_call_vts(tr, detach, 1, args, NULL, GRAPH_CALL_METHOD, "detach", out);
    }
    if (is_name(name, "T") || is_name(name, "mT") || is_name(name, "mH")) return fake_getattr(tr, t, name, out);
    TypeObj *type = vm_type_of(vm, t->fake);
    Value descr = type_lookup(vm, type, name);
    if (val_is_null(descr)) {
        /* attributes users put on tensors (instance dict): only on graph inputs */
        if (t->source && !val_is_null(t->value)) {
            Value v = trace_static_getattr(vm, t->value, name);
            if (!val_is_null(v)) {
                *out = vt_from_value(tr, v, source_attr(tr, t->source, name));
                return TX_OK;
            }
        }
        return trace_break(tr, "'Tensor' object has no attribute '%s'", name->data);
    }
    if (descr.tag == VAL_OBJ && descr.as.o->type == vm->t_getset) {
        /* the code at the break looks at the autograd graph the region made: its nodes must be
         * the ones eager makes, not one CompiledFunctionBackward */
        if ((is_name(name, "grad_fn") || is_name(name, "_base") || is_name(name, "output_nr")) && !t->source)
            tr->eager_autograd = true;
        return trace_break(tr, "tensor.%s", name->data);
    }
    return bind_class_attr(tr, t, type, descr, name, out);
}

/* ---- nn.Module ------------------------------------------------------------------------------------ */

/* A name in one of the module's registration dicts (NULL before Module.__init__). */
static Value module_dict_get(VM *vm, Value mod, const char *dname, StrObj *name) {
    (void)vm;
    NnModuleObj *m = (NnModuleObj *)mod.as.o;
    DictObj *d = strcmp(dname, "_parameters") == 0 ? m->parameters : strcmp(dname, "_buffers") == 0 ? m->buffers
                                                                                                   : m->modules;
    return d ? dict_get_str(d, name) : val_null();
}

TxStatus tr_module_children(Tracer *tr, VT *m, VT **out) {
    VM *vm = tr->vm;
    if (val_is_null(m->value)) return trace_break(tr, "a module made in the region");
    DictObj *mods = ((NnModuleObj *)m->value.as.o)->modules;
    if (!mods) return trace_break(tr, "a module whose __init__ did not run");
    VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(mods->used + 1));
    int n = 0;
    int64_t pos = 0;
    Value k, v;
    while (dict_next(mods, &pos, &k, &v)) {
        if (val_is_none(v)) continue;
        items[n++] = vt_from_value(tr, v, m->source && val_is_str(vm, k) ? source_attr(tr, m->source, AS_STR(k)) : NULL);
    }
    if (m->source) guard_dict_keys(tr, source_attr(tr, m->source, vm_intern_str(vm, "_modules")), mods);
    *out = vt_tuple(tr, items, n);
    return TX_OK;
}

static TxStatus module_attr(Tracer *tr, VT *m, StrObj *name, VT **out) {
    VM *vm = tr->vm;
    Value mod = m->value;
    if (val_is_null(mod)) return trace_break(tr, "attribute of a module made in the region");
    Source *src = m->source ? source_attr(tr, m->source, name) : NULL;
    DictObj **slot = obj_dict_slot(mod.as.o);
    TypeObj *t = vm_type_of(vm, mod);
    Value descr = type_lookup(vm, t, name);
    if (is_name(name, "training") && descr.tag == VAL_OBJ && descr.as.o->type == vm->t_getset) {
        /* Module.training (a C getset): its value now, guarded through its source as dynamo
         * guards it, so train()/eval() after compiling recompiles */
        Value v = vm_getattr(vm, mod, name);
        if (val_is_null(v)) {
            vm_clear_exc(vm);
            return trace_break(tr, "module.training raised");
        }
        *out = vt_from_value(tr, v, src);
        return TX_OK;
    }
    if (!val_is_null(descr) && vm_is_data_descriptor(vm, descr)) return bind_class_attr(tr, m, t, descr, name, out);
    Value v = *slot ? dict_get_str(*slot, name) : val_null();
    if (!val_is_null(v)) {
        *out = vt_from_value(tr, v, src);
        return TX_OK;
    }
    static const char *const dicts[] = {"_parameters", "_buffers", "_modules"};
    for (int i = 0; i < 3; i++) {
        v = module_dict_get(vm, mod, dicts[i], name);
        if (!val_is_null(v)) {
            *out = vt_from_value(tr, v, src);
            return TX_OK;
        }
    }
    if (!val_is_null(descr)) return bind_class_attr(tr, m, t, descr, name, out);
    *out = NULL;   /* absent */
    return TX_OK;
}

/* ---- plain objects ------------------------------------------------------------------------------------ */

static TxStatus object_attr(Tracer *tr, VT *o, StrObj *name, VT **out) {
    VM *vm = tr->vm;
    TypeObj *t = vt_python_type(tr, o);
    if (!t) return trace_break(tr, "attribute of an object of unknown type");
    Value descr = type_lookup(vm, t, name);
    if (!val_is_null(descr) && vm_is_data_descriptor(vm, descr)) return bind_class_attr(tr, o, t, descr, name, out);
    if (o->mut != MUT_NEW && !val_is_null(o->value)) {
        DictObj **slot = obj_dict_slot(o->value.as.o);
        Value v = t->dict_offset && *slot ? dict_get_str(*slot, name) : val_null();
        if (!val_is_null(v)) {
            *out = vt_from_value(tr, v, o->source ? source_attr(tr, o->source, name) : NULL);
            return TX_OK;
        }
        if (o->source && val_is_null(descr)) guard_hasattr(tr, o->source, name, false);
    }
    if (!val_is_null(descr)) return bind_class_attr(tr, o, t, descr, name, out);
    Value ga = type_lookup(vm, t, vm->special_names[SP_GETATTR]);
    if (!val_is_null(ga) && ga.tag == VAL_OBJ && ga.as.o->type == vm->t_function &&
        (((FunctionObj *)ga.as.o)->code->flags & CO_LIBRARY) && o->mut != MUT_NEW && !val_is_null(o->value)) {
        /* Ember's own lazy namespaces (torch.ops.<ns>.<op>): resolved for real now — their
         * __getattr__ looks the name up and caches it, which later calls see as a plain read */
        Value v = vm_getattr(vm, o->value, name);
        if (val_is_null(v)) {
            vm_clear_exc(vm);
            return trace_break(tr, "%s has no attribute %s", t->name->data, name->data);
        }
        *out = vt_from_value(tr, v, o->source ? source_attr(tr, o->source, name) : NULL);
        return TX_OK;
    }
    if (!val_is_null(ga) && ga.tag == VAL_OBJ && ga.as.o->type == vm->t_function) {
        VT *args[2] = {o, vt_const(tr, val_obj(name))};
        return tr_call(tr, vt_from_value(tr, ga, NULL), 2, args, NULL, out);
    }
    *out = NULL;
    return TX_OK;
}

/* ---- functions ------------------------------------------------------------------------------------------ */

/* An existing function's attribute: what the region stored on it, what its __dict__ holds (read
 * through its source, so a counter kept on a function stays symbolic and its presence guarded),
 * or one of the attributes every function has (__name__, __doc__, ...). */
static TxStatus function_attr(Tracer *tr, VT *fn, StrObj *name, VT **out) {
    VM *vm = tr->vm;
    VT *tracked = se_find_existing(tr, fn->value);
    VT *p = tracked ? se_load_attr(tr, tracked, name) : NULL;
    if (p) {
        *out = p->kind == VT_DELETED ? NULL : p;
        return TX_OK;
    }
    DictObj *d = ((FunctionObj *)fn->value.as.o)->dict;
    Value v = d ? dict_get_str(d, name) : val_null();
    if (!val_is_null(v)) {
        *out = vt_from_value(tr, v, fn->source ? source_attr(tr, fn->source, name) : NULL);
        return TX_OK;
    }
    Value r = vm_getattr_opt(vm, fn->value, name);
    if (val_is_null(r)) {
        if (!val_is_null(vm->exc)) {
            vm_clear_exc(vm);
            return trace_break(tr, "getattr raised");
        }
        if (fn->source) guard_hasattr(tr, fn->source, name, false);
        return TX_OK;
    }
    if (!(r.tag != VAL_OBJ || val_is_str(vm, r) || val_is_none(r))) return trace_break(tr, "function attribute '%s'", name->data);
    *out = vt_from_value(tr, r, NULL);
    return TX_OK;
}

/* ---- dispatch ------------------------------------------------------------------------------------------ */

/* *out NULL (status OK): the attribute is definitely absent. */
TxStatus tr_getattr_opt(Tracer *tr, VT *obj, StrObj *name, VT **out) {
    VM *vm = tr->vm;
    obj = vt_force(tr, obj);
    *out = NULL;
    if (obj->mut != MUT_NONE || obj->kind == VT_OBJECT || obj->kind == VT_NN_MODULE) {
        VT *p = se_load_attr(tr, obj, name);
        if (p) {
            *out = p->kind == VT_DELETED ? NULL : p;
            return TX_OK;
        }
    }
    switch (obj->kind) {
    case VT_TENSOR: return tensor_attr(tr, obj, name, out);
    case VT_OBJECT: return object_attr(tr, obj, name, out);
    case VT_NN_MODULE: return module_attr(tr, obj, name, out);
    case VT_FUNCTION:
        if (val_is_null(obj->value) || obj->mut == MUT_NEW) return trace_break(tr, "attribute of a function made in the region");
        return function_attr(tr, obj, name, out);
    case VT_SYMNUM: obj = tr_specialize(tr, obj); /* fallthrough */
    case VT_CONST: case VT_NATIVE: {
        Value r = vm_getattr_opt(vm, obj->value, name);
        if (val_is_null(r)) {
            if (!val_is_null(vm->exc)) {
                vm_clear_exc(vm);
                return trace_break(tr, "getattr raised");
            }
            return TX_OK;
        }
        *out = vt_from_value(tr, r, NULL);
        if (obj->kind == VT_CONST && (*out)->kind == VT_OPAQUE) (*out)->kind = VT_NATIVE;
        return TX_OK;
    }
    case VT_PARTIAL: return tr_partial_getattr(tr, obj, name, out);
    case VT_FN_CTX: return tr_fn_ctx_getattr(tr, obj, name, out);
    case VT_EXCEPTION: {
        /* (stores made in the region were read above) */
        if (is_name(name, "args")) {
            *out = obj->a;
            return TX_OK;
        }
        if (is_name(name, "__cause__") || is_name(name, "__context__")) {
            *out = vt_none(tr);
            return TX_OK;
        }
        if (is_name(name, "__suppress_context__")) {
            *out = vt_const(tr, val_bool(false));
            return TX_OK;
        }
        TypeObj *t = vt_python_type(tr, obj);
        Value descr = t ? type_lookup(vm, t, name) : val_null();
        if (val_is_null(descr)) return TX_OK;
        if (descr.tag == VAL_OBJ && descr.as.o->type == vm->t_getset) return trace_break(tr, "exception attribute '%s'", name->data);
        return bind_class_attr(tr, obj, t, descr, name, out);
    }
    case VT_SET:
        if (val_is_null(type_lookup(vm, vm->t_set, name))) return TX_OK;
        *out = method_vt(tr, obj, NULL, name);
        return TX_OK;
    case VT_LIST: case VT_TUPLE: case VT_DICT: {
        if (obj->kind == VT_TUPLE && !val_is_null(obj->value) && obj->n == 2) {
            /* torch.return_types.max / min */
            if (is_name(name, "values")) {
                *out = vt_item(tr, obj, 0);
                return TX_OK;
            }
            if (is_name(name, "indices")) {
                *out = vt_item(tr, obj, 1);
                return TX_OK;
            }
        }
        if (obj->kind == VT_TUPLE && !val_is_null(obj->value) && obj->value.as.o->type != vm->t_tuple) {
            /* other torch.return_types (linalg_qr's Q/R, slogdet's sign/logabsdet, ...): a field
             * is the item the real result's attribute is (branch opsmath) */
            Value got = vm_getattr(vm, obj->value, name);
            if (val_is_null(got)) {
                vm_clear_exc(vm);
            } else {
                TupleObj *real = AS_TUPLE(obj->value);
                for (int64_t i = 0; i < real->len && i < obj->n; i++)
                    if (val_identical(got, real->items[i])) {
                        *out = vt_item(tr, obj, (int)i);
                        return TX_OK;
                    }
            }
        }
        TypeObj *t = obj->kind == VT_LIST ? vm->t_list : obj->kind == VT_TUPLE ? vm->t_tuple
                     : val_is_null(obj->value) ? vm->t_dict : vm_type_of(vm, obj->value);
        if (val_is_null(type_lookup(vm, t, name))) return TX_OK;
        *out = method_vt(tr, obj, NULL, name);
        return TX_OK;
    }
    case VT_MODULE: {
        Value v = dict_get_str(((ModuleObj *)obj->value.as.o)->dict, name);
        if (val_is_null(v)) return TX_OK;
        *out = vt_from_value(tr, v, obj->source ? source_attr(tr, obj->source, name) : NULL);
        return TX_OK;
    }
    case VT_TYPE: {
        TypeObj *t = (TypeObj *)obj->value.as.o;
        Value v = type_lookup(vm, t, name);
        if (val_is_null(v)) {
            Value r = vm_getattr_opt(vm, obj->value, name);   /* __name__, __mro__ ... */
            if (val_is_null(r)) {
                vm_clear_exc(vm);
                return TX_OK;
            }
            *out = vt_from_value(tr, r, NULL);
            return TX_OK;
        }
        if (v.tag == VAL_OBJ && v.as.o->type == vm->t_staticmethod) v = ((WrapperObj *)v.as.o)->func;
        if (v.tag == VAL_OBJ && v.as.o->type == vm->t_classmethod) {
            *out = method_vt(tr, obj, vt_from_value(tr, ((WrapperObj *)v.as.o)->func, NULL), name);
            return TX_OK;
        }
        *out = vt_from_value(tr, v, obj->source ? source_attr(tr, obj->source, name) : NULL);
        return TX_OK;
    }
    case VT_METHOD:
        if (is_name(name, "__self__") && obj->a) {
            *out = obj->a;
            return TX_OK;
        }
        if (is_name(name, "__func__") && obj->b) {
            *out = obj->b;
            return TX_OK;
        }
        return trace_break(tr, "attribute '%s' of a method", name->data);
    case VT_HANDLE:
        if (is_name(name, "remove")) {
            *out = method_vt(tr, obj, NULL, name);
            return TX_OK;
        }
        return trace_break(tr, "attribute '%s' of a hook handle", name->data);
    case VT_CELL:
        if (is_name(name, "cell_contents")) return trace_break(tr, "cell_contents");
        return TX_OK;
    case VT_SUPER: {
        VT *self = obj->a;
        TypeObj *start = (TypeObj *)obj->value.as.o;
        TypeObj *t = vt_python_type(tr, self);
        if (!t) return trace_break(tr, "super() of an unknown type");
        TupleObj *mro = t->mro;
        int64_t i = 0;
        while (i < mro->len && mro->items[i].as.o != (Obj *)start) i++;
        for (i++; i < mro->len; i++) {
            TypeObj *k = (TypeObj *)mro->items[i].as.o;
            Value v = dict_get_str(k->dict, name);
            if (!val_is_null(v)) return bind_class_attr(tr, self, t, v, name, out);
        }
        return TX_OK;
    }
    default: return trace_break(tr, "attribute '%s' of %s", name->data, vt_kind_name(obj->kind));
    }
}

TxStatus tr_getattr(Tracer *tr, VT *obj, StrObj *name, VT **out) {
    if (obj && obj->kind == VT_LAZY_LIST && !obj->a && strcmp(name->data, "append") == 0) {
        /* list.append on an unread list: keep it unread (calls.c records the append) */
        VT *m = vt_new(tr, VT_METHOD);
        m->a = obj;
        m->user_name = name;
        *out = m;
        return TX_OK;
    }
    TxStatus s = tr_getattr_opt(tr, obj, name, out);
    if (s) return s;
    if (!*out) return trace_break(tr, "AttributeError: '%s' has no attribute '%s'", vt_kind_name(vt_force(tr, obj)->kind),
                               name->data);
    return TX_OK;
}

TxStatus tr_load_method(Tracer *tr, VT *obj, StrObj *name, VT **meth, VT **self) {
    VT *r;
    TxStatus s = tr_getattr(tr, obj, name, &r);
    if (s) return s;
    /* a method whose function is known goes on the stack as (function, self): also for
     * super().m, whose function is not what attribute lookup on self would find */
    if (r->kind == VT_METHOD && r->a && r->b) {
        *meth = r->b;
        *self = r->a;
        return TX_OK;
    }
    *meth = r;
    *self = vt_new(tr, VT_NULLV);
    return TX_OK;
}

/* ---- stores ------------------------------------------------------------------------------------------------ */

static bool default_setattr(Tracer *tr, TypeObj *t) {
    VM *vm = tr->vm;
    Value sa = type_lookup(vm, t, vm->special_names[SP_SETATTR]);
    Value base = type_lookup(vm, vm->t_object, vm->special_names[SP_SETATTR]);
    if (val_identical(sa, base)) return true;
    TypeObj *mod = tracer_nn_module_type(vm);
    return mod && val_identical(sa, type_lookup(vm, mod, vm->special_names[SP_SETATTR]));
}

TxStatus tr_setattr(Tracer *tr, VT *obj, StrObj *name, VT *value) {
    VM *vm = tr->vm;
    obj = vt_force(tr, obj);
    if (obj->kind == VT_FUNCTION) {
        /* f.attr = v: into the function's __dict__ (its own attributes are descriptors) */
        TypeObj *t = vm->t_function;
        if (!val_is_null(type_lookup(vm, t, name))) return trace_break(tr, "setattr of function attribute '%s'", name->data);
        if (obj->mut != MUT_NEW) {
            if (val_is_null(obj->value) || (!obj->source && !se_find_existing(tr, obj->value)))
                return trace_break(tr, "setattr on a function the tracer cannot name");
            obj = se_track_existing(tr, obj);
        }
        se_store_attr(tr, obj, name, value);
        return TX_OK;
    }
    if (obj->kind == VT_FN_CTX) return tr_fn_ctx_setattr(tr, obj, name, value);
    if (obj->kind != VT_OBJECT && obj->kind != VT_NN_MODULE && !(obj->kind == VT_EXCEPTION && obj->mut == MUT_NEW))
        return trace_break(tr, "setattr on %s", vt_kind_name(obj->kind));
    if (obj->mut == MUT_EXISTING && !obj->source) return trace_break(tr, "setattr on an object the tracer cannot name");
    TypeObj *t = vt_python_type(tr, obj);
    if (!t || !default_setattr(tr, t)) return trace_break(tr, "setattr on an object with its own __setattr__");
    Value descr = type_lookup(vm, t, name);
    if (!val_is_null(descr) && vm_is_data_descriptor(vm, descr)) {
        if (descr.as.o->type == vm->t_property) {
            PropertyObj *p = (PropertyObj *)descr.as.o;
            if (p->fset.tag == VAL_OBJ && p->fset.as.o->type == vm->t_function) {
                VT *args[2] = {obj, value};
                VT *r;
                return tr_call(tr, vt_from_value(tr, p->fset, NULL), 2, args, NULL, &r);
            }
        }
        return trace_break(tr, "setattr through a descriptor");
    }
    if (obj->kind == VT_NN_MODULE) {
        VT *v = vt_force(tr, value);
        if (v->kind == VT_NN_MODULE || (v->kind == VT_TENSOR && vm_type_of(vm, v->fake) != torch_state(vm)->t_tensor))
            return trace_break(tr, "registering a module or parameter in the region");
        static const char *const dicts[] = {"_parameters", "_buffers", "_modules"};
        for (int i = 0; i < 3; i++)
            if (!val_is_null(module_dict_get(vm, obj->value, dicts[i], name)))
                return trace_break(tr, "assigning to a registered parameter, buffer or module");
    }
    se_store_attr(tr, obj, name, value);
    return TX_OK;
}

TxStatus tr_delattr(Tracer *tr, VT *obj, StrObj *name) {
    obj = vt_force(tr, obj);
    if (obj->kind != VT_OBJECT && obj->kind != VT_NN_MODULE)
        return trace_break(tr, "delattr on %s", vt_kind_name(obj->kind));
    if (obj->mut == MUT_EXISTING && !obj->source) return trace_break(tr, "delattr on an object the tracer cannot name");
    TypeObj *t = vt_python_type(tr, obj);
    if (!t || !default_setattr(tr, t)) return trace_break(tr, "delattr on an object with its own __delattr__");
    VT *cur;
    TxStatus s = tr_getattr_opt(tr, obj, name, &cur);
    if (s) return s;
    if (!cur) return trace_break(tr, "AttributeError in del");
    if (cur->kind == VT_METHOD && cur->a == obj) return trace_break(tr, "del of a class attribute");
    VT *d = vt_new(tr, VT_DELETED);
    se_store_attr(tr, obj, name, d);
    return TX_OK;
}
