/* src/torch/module.c — torch.nn.Module in C: the object and its state (see module.h), attribute
 * routing (__setattr__ sends Parameters to _parameters, Modules to _modules and tensors to
 * existing buffers; __getattr__ falls back to the three dicts; __delattr__), registration
 * (register_parameter, register_buffer, add_module), traversal in PyTorch's order
 * (named_children / named_modules / named_parameters / named_buffers, with identity dedup),
 * state_dict and load_state_dict, train/eval, zero_grad, apply, requires_grad_, and the module
 * tree __repr__.  The hooks and the call protocol are in module_call.c.
 *
 * Messages are PyTorch 2.x's (torch/nn/modules/module.py), so scripts catching them behave the
 * same under both. */
#include <stdlib.h>
#include <string.h>

#include "src/torch/module_internal.h"
#include "vm/import.h"

int torch_tensor_copy_init(VM *vm);

/* ---- helpers -------------------------------------------------------------------------------- */

DictObj *nn_odict_new(VM *vm) { return dict_new_typed(vm, vm->t_ordereddict); }

DictObj *nn_hook_dict(VM *vm, NnModuleObj *m, NnHookDict which) {
    if (!m->hooks[which]) m->hooks[which] = nn_odict_new(vm);
    return m->hooks[which];
}

int nn_check_init(VM *vm, Value self, const char *name) {
    if (NNMOD(self)->parameters) return 0;
    vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '%s'", vm_type_name(vm, self), name);
    return -1;
}

Value nn_lib_attr(VM *vm, Value *cache, const char *module, const char *name) {
    if (!val_is_null(*cache)) return *cache;
    Value mod = vm_import_module(vm, module);
    if (val_is_null(mod)) return mod;
    Value v = vm_getattr_c(vm, mod, name);
    if (!val_is_null(v)) *cache = v;
    return v;
}

StrObj *nn_typename(VM *vm, Value v) {
    if (torch_is_tensor(vm, v)) {
        Value r = vm_call_method(vm, v, "type", 0, NULL);
        return val_is_str(vm, r) ? AS_STR(r) : NULL;
    }
    /* module = obj.__module__ and qualname = obj.__qualname__ / __name__ when the object has
     * them (classes, functions), else those of its class; builtins print bare */
    Value mod = val_null(), qual = val_null();
    if (val_is_obj(v) && (vm_isinstance_type(vm, v, vm->t_type) || vm_isinstance_type(vm, v, vm->t_function))) {
        mod = vm_getattr_opt(vm, v, vm_intern_str(vm, "__module__"));
        qual = vm_getattr_opt(vm, v, vm_intern_str(vm, "__qualname__"));
    }
    if (val_is_null(qual) || !val_is_str(vm, qual)) {
        vm_clear_exc(vm);
        TypeObj *t = vm_type_of(vm, v);
        mod = t->module;
        qual = val_obj(type_qualname(t));
    }
    if (!val_is_str(vm, mod) || AS_STR(mod)->len == 0 || str_eq_c(AS_STR(mod), "builtins")) return AS_STR(qual);
    return str_printf(vm, "%s.%s", AS_STR(mod)->data, AS_STR(qual)->data);
}

int nn_warn(VM *vm, StrObj *msg) {
    vm_push_root(vm, val_obj(msg));
    Value mod = vm_import_module(vm, "warnings");
    Value r = val_is_null(mod) ? mod : vm_call_method(vm, mod, "warn", 1, (Value[]){val_obj(msg)});
    vm_pop_root(vm);
    return val_is_null(r) ? -1 : 0;
}

static bool is_parameter(VM *vm, Value v) {
    TypeObj *p = nn_state(vm)->t_parameter;
    return p && v.tag == VAL_OBJ && (v.as.o->type == p || type_is_subtype(v.as.o->type, p));
}

/* Identity set of objects (dedup of modules and tensors while traversing). */
typedef struct PtrSet {
    Obj **slots;
    size_t cap, n;
} PtrSet;

static void ptrset_free(PtrSet *s) { free(s->slots); }

/* true if o was added, false if already present (or out of memory: treated as present) */
static bool ptrset_add(PtrSet *s, Obj *o) {
    if ((s->n + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 32;
        Obj **ns = calloc(nc, sizeof *ns);
        if (!ns) return false;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i]) continue;
            size_t h = ((uintptr_t)s->slots[i] >> 4) & (nc - 1);
            while (ns[h]) h = (h + 1) & (nc - 1);
            ns[h] = s->slots[i];
        }
        free(s->slots);
        s->slots = ns;
        s->cap = nc;
    }
    size_t h = ((uintptr_t)o >> 4) & (s->cap - 1);
    while (s->slots[h]) {
        if (s->slots[h] == o) return false;
        h = (h + 1) & (s->cap - 1);
    }
    s->slots[h] = o;
    s->n++;
    return true;
}

static bool ptrset_has(const PtrSet *s, Obj *o) {
    if (!s->cap) return false;
    size_t h = ((uintptr_t)o >> 4) & (s->cap - 1);
    while (s->slots[h]) {
        if (s->slots[h] == o) return true;
        h = (h + 1) & (s->cap - 1);
    }
    return false;
}

/* prefix + "." + name, or name when prefix is empty */
static StrObj *join_name(VM *vm, StrObj *prefix, StrObj *name) {
    if (!prefix || prefix->len == 0) return name;
    return str_printf(vm, "%s.%s", prefix->data, name->data);
}

static Value pair(VM *vm, Value a, Value b) {
    TupleObj *t = tuple_pack(vm, 2, a, b);
    return t ? val_obj(t) : val_null();
}

static int append_pair(VM *vm, ListObj *out, Value a, Value b) {
    vm_push_root(vm, a);
    Value p = pair(vm, a, b);
    vm_pop_root(vm);
    if (val_is_null(p)) return -1;
    return list_append(vm, out, p);
}

/* ---- object ------------------------------------------------------------------------------- */

static void nn_module_trace(VM *vm, Obj *o) {
    NnModuleObj *m = (NnModuleObj *)o;
    gc_mark(vm, m->dict);
    gc_mark(vm, m->parameters);
    gc_mark(vm, m->buffers);
    gc_mark(vm, m->modules);
    gc_mark(vm, m->non_persistent);
    for (int i = 0; i < NN_HOOKS_COUNT; i++) gc_mark(vm, m->hooks[i]);
    gc_mark_value(vm, m->is_full_backward_hook);
}

/* Module.__init__(self, *args, **kwargs): the state of an empty module. */
/* Module.__init__'s state: training, empty parameter / buffer / module dicts, no hooks */
static int nn_init_state(VM *vm, NnModuleObj *m) {
    m->training = true;
    m->is_full_backward_hook = val_none();
    if (!(m->parameters = nn_odict_new(vm)) || !(m->buffers = nn_odict_new(vm)) || !(m->modules = nn_odict_new(vm)))
        return -1;
    if (!(m->non_persistent = set_new(vm, vm->t_set))) return -1;
    for (int i = 0; i < NN_HOOKS_COUNT; i++) m->hooks[i] = NULL;
    return 0;
}

static Value m_init(ARGS) {
    Value self = argv[0];
    NnModuleObj *m = NNMOD(self);
    Value call_super = vm_getattr_c(vm, self, "call_super_init");
    if (val_is_null(call_super)) return call_super;
    int cs = vm_truthy(vm, call_super);
    if (cs < 0) return val_null();
    if (!cs && kw && kw->len)
        return vm_raise(vm, vm->e_TypeError, "%s.__init__() got an unexpected keyword argument '%s'",
                        vm_type_name(vm, self), AS_STR(kw->items[0])->data);
    if (!cs && argc > 1)
        return vm_raise(vm, vm->e_TypeError, "%s.__init__() takes 1 positional argument but %d were given",
                        vm_type_name(vm, self), argc);
    return nn_init_state(vm, m) < 0 ? val_null() : val_none();
}

/* ---- pickling (torch.save(model)) ---------------------------------------------------------------- */

/* What a PyTorch module's __dict__ holds besides its plain attributes: the state Ember keeps in
 * NnModuleObj, under PyTorch's names (the getsets below), so a pickle carries PyTorch's layout. */
static const char *const pickled_fields[] = {
    "training", "_parameters", "_buffers", "_non_persistent_buffers_set", "_modules", "_is_full_backward_hook",
#define X(e, s) s,
    NN_HOOK_DICTS(X)
#undef X
};
#define N_PICKLED_FIELDS ((int)(sizeof pickled_fields / sizeof pickled_fields[0]))

/* __getstate__: PyTorch pickles a module through its __dict__ (object.__reduce_ex__); here that
 * dict is assembled: the state fields, then the plain attributes */
static Value m_getstate(ARGS) {
    if (native_check_args(vm, "__getstate__", argc, kw, 1, 1) < 0) return val_null();
    Value self = argv[0];
    if (nn_check_init(vm, self, "__getstate__") < 0) return val_null();
    DictObj *st = dict_new(vm);
    if (!st) return val_null();
    vm_push_root(vm, val_obj(st));
    for (int i = 0; i < N_PICKLED_FIELDS; i++) {
        Value v = vm_getattr_c(vm, self, pickled_fields[i]);
        if (val_is_null(v) || dict_set_c(vm, st, pickled_fields[i], v) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    DictObj *d = NNMOD(self)->dict;
    int rc = d ? dict_merge_dict(vm, st, d) : 0;
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(st);
}

/* __setstate__: PyTorch's (the dict's items become attributes, and a state saved before a field
 * existed leaves it at Module.__init__'s value); the state fields go to NnModuleObj through their
 * getsets, the rest to the instance dict */
static Value m_setstate(ARGS) {
    if (native_check_args(vm, "__setstate__", argc, kw, 2, 2) < 0) return val_null();
    Value self = argv[0], state = argv[1];
    if (!vm_isinstance_type(vm, state, vm->t_dict))
        return vm_raise(vm, vm->e_TypeError, "%s.__setstate__: state must be a dict, not %s", vm_type_name(vm, self),
                        vm_type_name(vm, state));
    NnModuleObj *m = NNMOD(self);
    if (!m->parameters && nn_init_state(vm, m) < 0) return val_null();
    DictObj *d = AS_DICT(state);
    for (int64_t i = 0; i < d->nentries; i++) {
        Value k = d->entries[i].key;
        if (val_is_null(k)) continue;
        if (!val_is_str(vm, k))
            return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, k));
        if (vm_generic_setattr(vm, self, AS_STR(k), d->entries[i].value) < 0) return val_null();
    }
    return val_none();
}

static Value m_forward_unimplemented(ARGS) {
    return vm_raise(vm, vm->e_NotImplementedError, "Module [%s] is missing the required \"forward\" function",
                    vm_type_name(vm, argv[0]));
}

/* ---- attributes ------------------------------------------------------------------------------ */

static Value m_getattr(ARGS) {
    if (argc != 2 || !val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "__getattr__(name)");
    NnModuleObj *m = NNMOD(argv[0]);
    StrObj *name = AS_STR(argv[1]);
    Value v;
    if ((m->parameters && !val_is_null(v = dict_get_str(m->parameters, name))) ||
        (m->buffers && !val_is_null(v = dict_get_str(m->buffers, name))) ||
        (m->modules && !val_is_null(v = dict_get_str(m->modules, name)))) {
        Value hook = nn_state(vm)->fx_getattr_hook;
        if (__builtin_expect(!val_is_null(hook), 0)) {
            vm_push_root(vm, hook);
            Value r = vm_call3(vm, hook, argv[0], argv[1], v);
            vm_pop_root(vm);
            return r;
        }
        return v;
    }
    return vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '%s'", vm_type_name(vm, argv[0]),
                    name->data);
}

static int remove_name(VM *vm, DictObj *d, StrObj *name) {
    if (d && dict_get_str(d, name).tag != VAL_NULL && dict_del_str(vm, d, name) < 0) return -1;
    return 0;
}

static int discard_name(VM *vm, SetObj *s, StrObj *name) {
    return s && set_discard(vm, s, val_obj(name)) < 0 ? -1 : 0;
}

static int run_registration_hooks(VM *vm, NnGlobalHookDict which, Value self, StrObj *name, Value *value) {
    DictObj *d = nn_state(vm)->global[which];
    if (nn_dict_empty(d)) return 0;
    int64_t pos = 0;
    Value k, hook;
    while (dict_next(d, &pos, &k, &hook)) {
        Value args[3] = {self, val_obj(name), *value};
        Value r = vm_call(vm, hook, 3, args, NULL);
        if (val_is_null(r)) return -1;
        if (!val_is_none(r)) *value = r;
    }
    return 0;
}

static Value register_parameter(VM *vm, Value self, Value namev, Value param);

static int module_setattr(VM *vm, Value self, StrObj *name, Value value) {
    NnModuleObj *m = NNMOD(self);
    if (is_parameter(vm, value)) {
        if (!m->parameters) {
            vm_raise(vm, vm->e_AttributeError, "cannot assign parameters before Module.__init__() call");
            return -1;
        }
        if (remove_name(vm, m->dict, name) < 0 || remove_name(vm, m->buffers, name) < 0 ||
            remove_name(vm, m->modules, name) < 0 || discard_name(vm, m->non_persistent, name) < 0)
            return -1;
        return val_is_null(register_parameter(vm, self, val_obj(name), value)) ? -1 : 0;
    }
    if (m->parameters && !val_is_null(dict_get_str(m->parameters, name))) {
        if (!val_is_none(value)) {
            StrObj *tn = nn_typename(vm, value);
            if (tn)
                vm_raise(vm, vm->e_TypeError,
                         "cannot assign '%s' as parameter '%s' (torch.nn.Parameter or None expected)", tn->data,
                         name->data);
            return -1;
        }
        return val_is_null(register_parameter(vm, self, val_obj(name), value)) ? -1 : 0;
    }
    if (nn_is_module(vm, value)) {
        if (!m->modules) {
            vm_raise(vm, vm->e_AttributeError, "cannot assign module before Module.__init__() call");
            return -1;
        }
        if (remove_name(vm, m->dict, name) < 0 || remove_name(vm, m->parameters, name) < 0 ||
            remove_name(vm, m->buffers, name) < 0 || discard_name(vm, m->non_persistent, name) < 0)
            return -1;
        if (run_registration_hooks(vm, NN_GLOBAL_MOD_REG, self, name, &value) < 0) return -1;
        return dict_set_str(vm, m->modules, name, value);
    }
    if (m->modules && !val_is_null(dict_get_str(m->modules, name))) {
        if (!val_is_none(value)) {
            StrObj *tn = nn_typename(vm, value);
            if (tn)
                vm_raise(vm, vm->e_TypeError,
                         "cannot assign '%s' as child module '%s' (torch.nn.Module or None expected)", tn->data,
                         name->data);
            return -1;
        }
        if (run_registration_hooks(vm, NN_GLOBAL_MOD_REG, self, name, &value) < 0) return -1;
        return dict_set_str(vm, m->modules, name, value);
    }
    if (m->buffers && !val_is_null(dict_get_str(m->buffers, name))) {
        if (!val_is_none(value) && !torch_is_tensor(vm, value)) {
            StrObj *tn = nn_typename(vm, value);
            if (tn)
                vm_raise(vm, vm->e_TypeError, "cannot assign '%s' as buffer '%s' (torch.Tensor or None expected)",
                         tn->data, name->data);
            return -1;
        }
        if (run_registration_hooks(vm, NN_GLOBAL_BUF_REG, self, name, &value) < 0) return -1;
        return dict_set_str(vm, m->buffers, name, value);
    }
    return vm_generic_setattr(vm, self, name, value);
}

static Value m_setattr(ARGS) {
    if (argc != 3 || !val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'",
                        argc > 1 ? vm_type_name(vm, argv[1]) : "nothing");
    return module_setattr(vm, argv[0], AS_STR(argv[1]), argv[2]) < 0 ? val_null() : val_none();
}

static Value m_delattr(ARGS) {
    if (argc != 2 || !val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'",
                        argc > 1 ? vm_type_name(vm, argv[1]) : "nothing");
    NnModuleObj *m = NNMOD(argv[0]);
    StrObj *name = AS_STR(argv[1]);
    if (m->parameters && !val_is_null(dict_get_str(m->parameters, name)))
        return dict_del_str(vm, m->parameters, name) < 0 ? val_null() : val_none();
    if (m->buffers && !val_is_null(dict_get_str(m->buffers, name))) {
        if (dict_del_str(vm, m->buffers, name) < 0 || discard_name(vm, m->non_persistent, name) < 0)
            return val_null();
        return val_none();
    }
    if (m->modules && !val_is_null(dict_get_str(m->modules, name)))
        return dict_del_str(vm, m->modules, name) < 0 ? val_null() : val_none();
    return vm_generic_delattr(vm, argv[0], name) < 0 ? val_null() : val_none();
}

/* ---- registration ---------------------------------------------------------------------------- */

/* Common checks of register_parameter / register_buffer / add_module on the name. */
static int check_member_name(VM *vm, Value self, Value namev, DictObj *own, const char *what) {
    if (!val_is_str(vm, namev)) {
        StrObj *tn = nn_typename(vm, namev);
        if (tn) vm_raise(vm, vm->e_TypeError, "%s name should be a string. Got %s", what, tn->data);
        return -1;
    }
    StrObj *name = AS_STR(namev);
    bool is_module = strcmp(what, "module") == 0;
    if (!is_module && strchr(name->data, '.')) {
        vm_raise(vm, vm->e_KeyError, "%s name can't contain \".\"", what);
        return -1;
    }
    if (!is_module && name->len == 0) {
        vm_raise(vm, vm->e_KeyError, "%s name can't be empty string \"\"", what);
        return -1;
    }
    int has = vm_hasattr(vm, self, name);
    if (has < 0) return -1;
    if (has && val_is_null(dict_get_str(own, name))) {
        vm_raise(vm, vm->e_KeyError, "attribute '%s' already exists", name->data);
        return -1;
    }
    if (is_module && strchr(name->data, '.')) {
        vm_raise(vm, vm->e_KeyError, "module name can't contain \".\", got: %s", name->data);
        return -1;
    }
    if (is_module && name->len == 0) {
        vm_raise(vm, vm->e_KeyError, "module name can't be empty string \"\"");
        return -1;
    }
    return 0;
}

static Value register_parameter(VM *vm, Value self, Value namev, Value param) {
    NnModuleObj *m = NNMOD(self);
    if (!m->parameters) return vm_raise(vm, vm->e_AttributeError, "cannot assign parameter before Module.__init__() call");
    if (check_member_name(vm, self, namev, m->parameters, "parameter") < 0) return val_null();
    StrObj *name = AS_STR(namev);
    if (val_is_none(param))
        return dict_set_str(vm, m->parameters, name, val_none()) < 0 ? val_null() : val_none();
    if (!is_parameter(vm, param)) {
        StrObj *tn = nn_typename(vm, param);
        if (!tn) return val_null();
        return vm_raise(vm, vm->e_TypeError,
                        "cannot assign '%s' object to parameter '%s' (torch.nn.Parameter or None required)",
                        tn->data, name->data);
    }
    if (ag_grad_fn(torch_tensor_of(param)))
        return vm_raise(vm, vm->e_ValueError,
                        "Cannot assign non-leaf Tensor to parameter '%s'. Model parameters must be created "
                        "explicitly. To express '%s' as a function of another Tensor, compute the value in the "
                        "forward() method.",
                        name->data, name->data);
    vm_push_root(vm, param);
    int rc = run_registration_hooks(vm, NN_GLOBAL_PARAM_REG, self, name, &param);
    vm_pop_root(vm);
    if (rc < 0) return val_null();
    return dict_set_str(vm, m->parameters, name, param) < 0 ? val_null() : val_none();
}

static Value m_register_parameter(ARGS) {
    static const char *const names[] = {"self", "name", "param"};
    Value a[3];
    if (native_parse_args(vm, "register_parameter", argc, argv, kw, 3, 3, names, 3, a) < 0) return val_null();
    return register_parameter(vm, a[0], a[1], a[2]);
}

static Value m_register_buffer(ARGS) {
    static const char *const names[] = {"self", "name", "tensor", "persistent"};
    Value a[4];
    if (native_parse_args(vm, "register_buffer", argc, argv, kw, 4, 3, names, 4, a) < 0) return val_null();
    Value self = a[0];
    NnModuleObj *m = NNMOD(self);
    if (!m->buffers) return vm_raise(vm, vm->e_AttributeError, "cannot assign buffer before Module.__init__() call");
    if (check_member_name(vm, self, a[1], m->buffers, "buffer") < 0) return val_null();
    StrObj *name = AS_STR(a[1]);
    Value t = a[2];
    if (!val_is_none(t) && !torch_is_tensor(vm, t)) {
        StrObj *tn = nn_typename(vm, t);
        if (!tn) return val_null();
        return vm_raise(vm, vm->e_TypeError,
                        "cannot assign '%s' object to buffer '%s' (torch Tensor or None required)", tn->data,
                        name->data);
    }
    int persistent = 1;
    if (!val_is_null(a[3]) && (persistent = vm_truthy(vm, a[3])) < 0) return val_null();
    vm_push_root(vm, t);
    int rc = run_registration_hooks(vm, NN_GLOBAL_BUF_REG, self, name, &t);
    vm_pop_root(vm);
    if (rc < 0 || dict_set_str(vm, m->buffers, name, t) < 0) return val_null();
    if (persistent) {
        if (set_discard(vm, m->non_persistent, val_obj(name)) < 0) return val_null();
    } else if (set_add(vm, m->non_persistent, val_obj(name)) < 0) {
        return val_null();
    }
    return val_none();
}

static Value m_add_module(ARGS) {
    static const char *const names[] = {"self", "name", "module"};
    Value a[3];
    if (native_parse_args(vm, fn->name, argc, argv, kw, 3, 3, names, 3, a) < 0) return val_null();
    Value self = a[0], mod = a[2];
    NnModuleObj *m = NNMOD(self);
    if (!nn_is_module(vm, mod) && !val_is_none(mod)) {
        StrObj *tn = nn_typename(vm, mod);
        if (!tn) return val_null();
        return vm_raise(vm, vm->e_TypeError, "%s is not a Module subclass", tn->data);
    }
    if (!m->modules) return vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '_modules'", vm_type_name(vm, self));
    if (check_member_name(vm, self, a[1], m->modules, "module") < 0) return val_null();
    StrObj *name = AS_STR(a[1]);
    vm_push_root(vm, mod);
    int rc = run_registration_hooks(vm, NN_GLOBAL_MOD_REG, self, name, &mod);
    vm_pop_root(vm);
    if (rc < 0) return val_null();
    return dict_set_str(vm, m->modules, name, mod) < 0 ? val_null() : val_none();
}

static Value m_get_submodule(ARGS) {
    static const char *const names[] = {"self", "target"};
    Value a[2];
    if (native_parse_args(vm, "get_submodule", argc, argv, kw, 2, 2, names, 2, a) < 0) return val_null();
    if (!val_is_str(vm, a[1])) return vm_raise(vm, vm->e_TypeError, "get_submodule() target must be a str");
    StrObj *target = AS_STR(a[1]);
    Value mod = a[0];
    if (target->len == 0) return mod;
    const char *p = target->data;
    vm_push_root(vm, mod);
    int slot = vm->roots.n - 1;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        StrObj *item = str_new(vm, p, (int64_t)len);
        if (!item) goto fail;
        vm_push_root(vm, val_obj(item));
        int has = vm_hasattr(vm, mod, item);
        if (has < 0) goto fail1;
        if (!has) {
            vm_raise(vm, vm->e_AttributeError, "%s has no attribute `%s`", vm_type_name(vm, mod), item->data);
            goto fail1;
        }
        mod = vm_getattr(vm, mod, item);
        if (val_is_null(mod)) goto fail1;
        vm->roots.v[slot] = mod;
        if (!nn_is_module(vm, mod)) {
            vm_raise(vm, vm->e_AttributeError, "`%s` is not an nn.Module", item->data);
            goto fail1;
        }
        vm_pop_root(vm);
        if (!dot) break;
        p = dot + 1;
    }
    vm_pop_root(vm);
    return mod;
fail1:
    vm_pop_root(vm);
fail:
    vm_pop_root(vm);
    return val_null();
}

/* ---- traversal ---------------------------------------------------------------------------------- */

/* Append (name, module) pairs of the tree under m in PyTorch's named_modules order. */
static int collect_modules(VM *vm, Value mv, StrObj *prefix, PtrSet *memo, bool remove_dup, ListObj *out) {
    if (ptrset_has(memo, mv.as.o)) return 0;
    if (remove_dup) ptrset_add(memo, mv.as.o);
    if (append_pair(vm, out, val_obj(prefix), mv) < 0) return -1;
    NnModuleObj *m = NNMOD(mv);
    if (!m->modules) return 0;
    int64_t pos = 0;
    Value k, child;
    if (vm_check_recursion(vm, " while traversing modules") < 0) return -1;
    int rc = 0;
    while (rc == 0 && dict_next(m->modules, &pos, &k, &child)) {
        if (val_is_none(child) || !nn_is_module(vm, child)) continue;
        StrObj *sub = join_name(vm, prefix, AS_STR(k));
        if (!sub) {
            rc = -1;
            break;
        }
        vm_push_root(vm, val_obj(sub));
        rc = collect_modules(vm, child, sub, memo, remove_dup, out);
        vm_pop_root(vm);
    }
    vm_leave_recursion(vm);
    return rc;
}

static Value list_iter(VM *vm, ListObj *l) {
    vm_push_root(vm, val_obj(l));
    Value it = vm_iter(vm, val_obj(l));
    vm_pop_root(vm);
    return it;
}

/* named_modules as a list of pairs (rooted by the caller) */
static ListObj *named_modules_list(VM *vm, Value self, StrObj *prefix, bool remove_dup) {
    ListObj *out = list_new(vm, 8);
    if (!out) return NULL;
    vm_push_root(vm, val_obj(out));
    PtrSet memo = {0};
    int rc = collect_modules(vm, self, prefix, &memo, remove_dup, out);
    ptrset_free(&memo);
    vm_pop_root(vm);
    return rc < 0 ? NULL : out;
}

static int opt_bool(VM *vm, Value v, bool dflt) {
    if (val_is_null(v)) return dflt;
    return vm_truthy(vm, v);
}

static StrObj *opt_prefix(VM *vm, Value v) {
    if (val_is_null(v)) return vm->empty_str;
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "prefix must be a str, not %s", vm_type_name(vm, v));
        return NULL;
    }
    return AS_STR(v);
}

static Value m_named_modules(ARGS) {
    static const char *const names[] = {"self", "memo", "prefix", "remove_duplicate"};
    Value a[4];
    if (native_parse_args(vm, "named_modules", argc, argv, kw, 4, 1, names, 4, a) < 0) return val_null();
    StrObj *prefix = opt_prefix(vm, a[2]);
    int rd = opt_bool(vm, a[3], true);
    if (!prefix || rd < 0) return val_null();
    if (!val_is_null(a[1]) && !val_is_none(a[1]))
        return vm_raise(vm, vm->e_NotImplementedError, "named_modules(memo=...) is not supported");
    ListObj *l = named_modules_list(vm, a[0], prefix, rd);
    return l ? list_iter(vm, l) : val_null();
}

static Value m_modules(ARGS) {
    if (native_check_args(vm, "modules", argc, kw, 1, 1) < 0) return val_null();
    ListObj *l = named_modules_list(vm, argv[0], vm->empty_str, true);
    if (!l) return val_null();
    for (int64_t i = 0; i < l->len; i++) l->items[i] = AS_TUPLE(l->items[i])->items[1];
    return list_iter(vm, l);
}

static ListObj *named_children_list(VM *vm, Value self) {
    NnModuleObj *m = NNMOD(self);
    ListObj *out = list_new(vm, 4);
    if (!out || !m->modules) return out;
    vm_push_root(vm, val_obj(out));
    PtrSet memo = {0};
    int64_t pos = 0;
    Value k, child;
    int rc = 0;
    while (rc == 0 && dict_next(m->modules, &pos, &k, &child)) {
        if (val_is_none(child) || !ptrset_add(&memo, child.as.o)) continue;
        rc = append_pair(vm, out, k, child);
    }
    ptrset_free(&memo);
    vm_pop_root(vm);
    return rc < 0 ? NULL : out;
}

static Value m_named_children(ARGS) {
    if (native_check_args(vm, "named_children", argc, kw, 1, 1) < 0) return val_null();
    ListObj *l = named_children_list(vm, argv[0]);
    return l ? list_iter(vm, l) : val_null();
}

static Value m_children(ARGS) {
    if (native_check_args(vm, "children", argc, kw, 1, 1) < 0) return val_null();
    ListObj *l = named_children_list(vm, argv[0]);
    if (!l) return val_null();
    for (int64_t i = 0; i < l->len; i++) l->items[i] = AS_TUPLE(l->items[i])->items[1];
    return list_iter(vm, l);
}

/* _named_members over _parameters (buffers = false) or _buffers: (name, tensor) pairs, or the
 * tensors alone when values_only. */
static ListObj *named_members(VM *vm, Value self, StrObj *prefix, bool recurse, bool remove_dup, bool buffers,
                              bool values_only) {
    ListObj *mods;
    if (recurse) {
        mods = named_modules_list(vm, self, prefix, remove_dup);
    } else {
        mods = list_new(vm, 1);
        if (mods) {
            vm_push_root(vm, val_obj(mods));
            int rc = append_pair(vm, mods, val_obj(prefix), self);
            vm_pop_root(vm);
            if (rc < 0) mods = NULL;
        }
    }
    if (!mods) return NULL;
    vm_push_root(vm, val_obj(mods));
    ListObj *out = list_new(vm, 8);
    if (!out) {
        vm_pop_root(vm);
        return NULL;
    }
    vm_push_root(vm, val_obj(out));
    PtrSet memo = {0};
    int rc = 0;
    for (int64_t i = 0; i < mods->len && rc == 0; i++) {
        TupleObj *p = AS_TUPLE(mods->items[i]);
        StrObj *mp = AS_STR(p->items[0]);
        NnModuleObj *m = NNMOD(p->items[1]);
        DictObj *d = buffers ? m->buffers : m->parameters;
        if (!d) continue;
        int64_t pos = 0;
        Value k, v;
        while (rc == 0 && dict_next(d, &pos, &k, &v)) {
            if (val_is_none(v) || !val_is_obj(v) || ptrset_has(&memo, v.as.o)) continue;
            if (remove_dup) ptrset_add(&memo, v.as.o);
            if (values_only) {
                rc = list_append(vm, out, v);
                continue;
            }
            StrObj *name = join_name(vm, mp, AS_STR(k));
            rc = name ? append_pair(vm, out, val_obj(name), v) : -1;
        }
    }
    ptrset_free(&memo);
    vm_pop_roots(vm, 2);
    return rc < 0 ? NULL : out;
}

static Value named_members_fn(VM *vm, int argc, Value *argv, TupleObj *kw, const char *fname, bool buffers) {
    static const char *const names[] = {"self", "prefix", "recurse", "remove_duplicate"};
    Value a[4];
    if (native_parse_args(vm, fname, argc, argv, kw, 4, 1, names, 4, a) < 0) return val_null();
    StrObj *prefix = opt_prefix(vm, a[1]);
    int rec = opt_bool(vm, a[2], true), rd = opt_bool(vm, a[3], true);
    if (!prefix || rec < 0 || rd < 0) return val_null();
    ListObj *l = named_members(vm, a[0], prefix, rec, rd, buffers, false);
    return l ? list_iter(vm, l) : val_null();
}

static Value m_named_parameters(ARGS) { return named_members_fn(vm, argc, argv, kw, "named_parameters", false); }
static Value m_named_buffers(ARGS) { return named_members_fn(vm, argc, argv, kw, "named_buffers", true); }

static Value members_fn(VM *vm, int argc, Value *argv, TupleObj *kw, const char *fname, bool buffers) {
    static const char *const names[] = {"self", "recurse"};
    Value a[2];
    if (native_parse_args(vm, fname, argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    int rec = opt_bool(vm, a[1], true);
    if (rec < 0) return val_null();
    ListObj *l = named_members(vm, a[0], vm->empty_str, rec, true, buffers, true);
    return l ? list_iter(vm, l) : val_null();
}

static Value m_parameters(ARGS) { return members_fn(vm, argc, argv, kw, "parameters", false); }
static Value m_buffers(ARGS) { return members_fn(vm, argc, argv, kw, "buffers", true); }

/* ---- modes and bulk operations ------------------------------------------------------------------ */

static Value m_train(ARGS) {
    static const char *const names[] = {"self", "mode"};
    Value a[2];
    if (native_parse_args(vm, "train", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    Value mode = val_is_null(a[1]) ? val_bool(true) : a[1];
    if (!val_is_bool(mode)) return vm_raise(vm, vm->e_ValueError, "training mode is expected to be boolean");
    if (nn_check_init(vm, a[0], "training") < 0) return val_null();
    NNMOD(a[0])->training = mode.as.b;
    ListObj *kids = named_children_list(vm, a[0]);
    if (!kids) return val_null();
    vm_push_root(vm, val_obj(kids));
    for (int64_t i = 0; i < kids->len; i++) {
        Value r = vm_call_method(vm, AS_TUPLE(kids->items[i])->items[1], "train", 1, &mode);
        if (val_is_null(r)) {
            vm_pop_root(vm);
            return r;
        }
    }
    vm_pop_root(vm);
    return a[0];
}

static Value m_eval(ARGS) {
    if (native_check_args(vm, "eval", argc, kw, 1, 1) < 0) return val_null();
    Value f = val_bool(false);
    return vm_call_method(vm, argv[0], "train", 1, &f);
}

/* t.share_memory_() for each tensor listed by self.<what>() (and each parameter's grad) */
static int share_each(VM *vm, Value self, const char *what) {
    Value list = vm_call_method(vm, self, what, 0, NULL);
    if (val_is_null(list)) return -1;
    vm_push_root(vm, list);
    Value it = vm_iter(vm, list);
    int rc = val_is_null(it) ? -1 : 0;
    if (rc == 0) vm_push_root(vm, it);
    while (rc == 0) {
        Value t = vm_next(vm, it);
        if (val_is_null(t)) {
            if (!val_is_null(vm->exc)) rc = -1;
            break;
        }
        vm_push_root(vm, t);
        if (val_is_null(vm_call_method(vm, t, "share_memory_", 0, NULL))) rc = -1;
        Value g = rc == 0 && strcmp(what, "parameters") == 0 ? vm_getattr_c(vm, t, "grad") : val_none();
        if (val_is_null(g)) rc = -1;
        else if (!val_is_none(g) && val_is_null(vm_call_method(vm, g, "share_memory_", 0, NULL))) rc = -1;
        vm_pop_root(vm);
    }
    if (!val_is_null(it)) vm_pop_root(vm);
    vm_pop_root(vm);
    return rc;
}

/* share_memory(): every parameter, gradient and buffer moved to shared memory (as PyTorch's
 * self._apply(lambda t: t.share_memory_())), so forked workers train the same weights (hogwild). */
static Value m_share_memory(ARGS) {
    if (native_check_args(vm, "share_memory", argc, kw, 1, 1) < 0) return val_null();
    if (share_each(vm, argv[0], "parameters") < 0 || share_each(vm, argv[0], "buffers") < 0) return val_null();
    return argv[0];
}

static Value m_apply(ARGS) {
    if (native_check_args(vm, "apply", argc, kw, 2, 2) < 0) return val_null();
    ListObj *kids = named_children_list(vm, argv[0]);
    if (!kids) return val_null();
    vm_push_root(vm, val_obj(kids));
    for (int64_t i = 0; i < kids->len; i++) {
        Value r = vm_call_method(vm, AS_TUPLE(kids->items[i])->items[1], "apply", 1, &argv[1]);
        if (val_is_null(r)) {
            vm_pop_root(vm);
            return r;
        }
    }
    vm_pop_root(vm);
    Value r = vm_call1(vm, argv[1], argv[0]);
    return val_is_null(r) ? r : argv[0];
}

static Value m_zero_grad(ARGS) {
    static const char *const names[] = {"self", "set_to_none"};
    Value a[2];
    if (native_parse_args(vm, "zero_grad", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    int to_none = opt_bool(vm, a[1], true);
    if (to_none < 0) return val_null();
    ListObj *ps = named_members(vm, a[0], vm->empty_str, true, true, false, true);
    if (!ps) return val_null();
    for (int64_t i = 0; i < ps->len; i++) {
        if (!torch_is_tensor(vm, ps->items[i])) continue;
        Tensor *p = torch_tensor_of(ps->items[i]);
        Tensor *g = ag_grad_of(p);
        if (!g) continue;
        if (to_none) {
            if (ag_set_grad(p, NULL) < 0) return torch_raise_error(vm);
            continue;
        }
        if (ag_grad_fn(g) ? ag_detach_(g) < 0 : ag_set_requires_grad(g, false) < 0) return torch_raise_error(vm);
        if (tensor_zero_(g) < 0) return torch_raise_error(vm);
    }
    return val_none();
}

static Value m_requires_grad_(ARGS) {
    static const char *const names[] = {"self", "requires_grad"};
    Value a[2];
    if (native_parse_args(vm, "requires_grad_", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    Value rg = val_is_null(a[1]) ? val_bool(true) : a[1];
    ListObj *ps = named_members(vm, a[0], vm->empty_str, true, true, false, true);
    if (!ps) return val_null();
    vm_push_root(vm, val_obj(ps));
    for (int64_t i = 0; i < ps->len; i++) {
        Value r = vm_call_method(vm, ps->items[i], "requires_grad_", 1, &rg);
        if (val_is_null(r)) {
            vm_pop_root(vm);
            return r;
        }
    }
    vm_pop_root(vm);
    return a[0];
}

/* cpu(): Ember runs on the CPU, so it returns the module. */
static Value m_identity_conv(ARGS) { return argv[0]; }

/* Converts the floating parameters (buffers: true) or buffers of the module tree, and parameters'
 * .grad, to dtype d in place of their data, as Module._apply does for to(dtype) / double() ... */
/* Module.to / float() / double() ...: floating tensors to dtype d (DEFAULT: kept), and with
 * memory_format= every 4-D and 5-D tensor laid out in it, as Module._apply's convert does
 * (t.to(dtype if floating, memory_format=...)); parameters and their gradients change in place
 * (param.data = ...), so optimizers and references keep them. */
static int convert_members(VM *vm, Value self, TensorDtype d, TensorMemoryFormat mf, bool buffers) {
    ListObj *ps = named_members(vm, self, vm->empty_str, true, true, buffers, true);
    if (!ps) return -1;
    for (int64_t i = 0; i < ps->len; i++) {
        if (!torch_is_tensor(vm, ps->items[i])) continue;
        Tensor *p = torch_tensor_of(ps->items[i]);
        Tensor *targets[2] = {p, ag_grad_of(p)};
        for (int k = 0; k < 2; k++) {
            Tensor *t = targets[k];
            if (!t) continue;
            TensorOpArgs a = TENSOR_OP_ARGS_INIT;
            if (d != TENSOR_DTYPE_DEFAULT && tensor_dtype_is_floating(tensor_dtype(t))) a.dtype = d;
            bool relayout = mf != TENSOR_MF_UNSET && (tensor_ndim(t) == 4 || tensor_ndim(t) == 5);
            a.memory_format = (uint8_t)(relayout ? mf : TENSOR_MF_PRESERVE);   /* t.to(dtype) preserves */
            if ((a.dtype == TENSOR_DTYPE_DEFAULT || a.dtype == tensor_dtype(t)) && !relayout) continue;
            Tensor *c = NULL;
            int rc = tensor_op_run(TENSOR_OP_TO_DTYPE, &t, 1, &a, &c, 1) < 0 ? -1 : c == t ? 0 : tensor_set_data(t, c);
            tensor_decref(c);
            if (rc < 0) {
                torch_raise_error(vm);
                return -1;
            }
        }
    }
    return 0;
}

static Value module_convert(VM *vm, Value self, TensorDtype d, TensorMemoryFormat mf) {
    if (convert_members(vm, self, d, mf, false) < 0 || convert_members(vm, self, d, mf, true) < 0) return val_null();
    return self;
}

/* float()/double()/half()/bfloat16(): data is the dtype */
static Value m_dtype_conv(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 1, 1) < 0) return val_null();
    return module_convert(vm, argv[0], (TensorDtype)(intptr_t)fn->data, TENSOR_MF_UNSET);
}

/* to(dtype) / to(device) / to(tensor) / to(device, dtype) / to(dtype=..., device=...,
 * memory_format=...) */
static Value m_to(ARGS) {
    TensorDtype d = TENSOR_DTYPE_DEFAULT;
    TensorMemoryFormat mf = TENSOR_MF_UNSET;
    int nkw = kw ? (int)kw->len : 0;
    for (int i = 1; i < argc + nkw; i++) {
        Value v = argv[i];
        if (i >= argc) {
            StrObj *k = AS_STR(kw->items[i - argc]);
            if (!str_eq_c(k, "dtype") && !str_eq_c(k, "device") && !str_eq_c(k, "non_blocking") &&
                !str_eq_c(k, "memory_format"))
                return vm_raise(vm, vm->e_TypeError, "to() received an invalid combination of arguments");
            if (str_eq_c(k, "memory_format")) {
                if (torch_memory_format_of(vm, v, &mf) < 0) return val_null();
                continue;
            }
            if (!str_eq_c(k, "dtype") && !str_eq_c(k, "device")) continue;
        }
        if (torch_is_tensor(vm, v)) {
            d = tensor_dtype(torch_tensor_of(v));
        } else if (val_is_type(vm, v, torch_state(vm)->t_dtype)) {
            if (torch_dtype_of(vm, v, &d) < 0) return val_null();
            if (!tensor_dtype_is_floating(d))
                return vm_raise(vm, vm->e_TypeError,
                                "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=%s",
                                tensor_dtype_name(d));
        }
    }
    if (d == TENSOR_DTYPE_DEFAULT && mf == TENSOR_MF_UNSET) return argv[0];
    return module_convert(vm, argv[0], d, mf);
}

/* ---- state_dict ------------------------------------------------------------------------------------ */

/* local_metadata as PyTorch's state_dict builds it: dict(version=module._version) */
static DictObj *local_metadata(VM *vm, Value self) {
    Value ver = vm_getattr_c(vm, self, "_version");
    if (val_is_null(ver)) return NULL;
    vm_push_root(vm, ver);
    DictObj *md = dict_new(vm);
    if (md) {
        vm_push_root(vm, val_obj(md));   /* dict_set_c interns its key: it allocates */
        if (dict_set_c(vm, md, "version", ver) < 0) md = NULL;
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return md;
}

/* destination._metadata[prefix without its dot] = local_metadata, as PyTorch's state_dict records
 * each module's version before its tensors (a checkpoint carries it; load_state_dict hands it
 * back to the module's pre-hooks) */
static int save_metadata(VM *vm, Value self, DictObj *meta, StrObj *prefix) {
    DictObj *local = local_metadata(vm, self);
    if (!local) return -1;
    vm_push_root(vm, val_obj(local));
    StrObj *key = str_new(vm, prefix->data, prefix->len ? prefix->len - 1 : 0);
    int rc = -1;
    if (key) {
        vm_push_root(vm, val_obj(key));
        rc = dict_set_str(vm, meta, key, val_obj(local));
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return rc;
}

/* _state_dict_hooks after the module's own entries and its children's: hook(module, destination,
 * prefix, local_metadata); a non-None result replaces the destination the outermost call returns
 * (*result; nested calls drop it, as PyTorch's parent ignores its child's state_dict() result). */
static int run_state_dict_hooks(VM *vm, Value self, DictObj *dest, StrObj *prefix, Value *result) {
    DictObj *hooks = NNMOD(self)->hooks[NN_HOOKS_SD];
    if (nn_dict_empty(hooks)) return 0;
    DictObj *md = local_metadata(vm, self);
    if (!md) return -1;
    vm_push_root(vm, val_obj(md));
    ListObj *fns = list_new(vm, 0);   /* a snapshot: a hook may change the dict */
    int rc = fns ? 0 : -1;
    if (fns) vm_push_root(vm, val_obj(fns));
    int64_t pos = 0;
    Value k, v;
    while (rc == 0 && dict_next(hooks, &pos, &k, &v)) rc = list_append(vm, fns, v);
    int held = 0;   /* results kept as *result stay rooted until the caller has them */
    for (int64_t i = 0; rc == 0 && i < fns->len; i++) {
        Value args[4] = {self, val_obj(dest), val_obj(prefix), val_obj(md)};
        Value r = vm_call(vm, fns->items[i], 4, args, NULL);
        if (val_is_null(r)) {
            rc = -1;
        } else if (result && !val_is_none(r)) {
            *result = r;
            vm_push_root(vm, r);
            held++;
        }
    }
    vm_pop_roots(vm, held + (fns ? 2 : 1));
    return rc;
}

static int save_state(VM *vm, Value self, DictObj *dest, DictObj *meta, StrObj *prefix, bool keep_vars,
                      Value *result) {
    NnModuleObj *m = NNMOD(self);
    if (meta && save_metadata(vm, self, meta, prefix) < 0) return -1;
    for (int pass = 0; pass < 2; pass++) {
        DictObj *d = pass ? m->buffers : m->parameters;
        if (!d) continue;
        int64_t pos = 0;
        Value k, v;
        while (dict_next(d, &pos, &k, &v)) {
            if (val_is_none(v)) continue;
            if (pass && m->non_persistent && set_contains(vm, m->non_persistent, k) == 1) continue;
            StrObj *key = str_concat(vm, prefix, AS_STR(k));
            if (!key) return -1;
            vm_push_root(vm, val_obj(key));
            Value val = v;
            if (!keep_vars && torch_is_tensor(vm, v)) val = torch_result(vm, ag_detach(torch_tensor_of(v)));
            int rc = val_is_null(val) ? -1 : dict_set_str(vm, dest, key, val);
            vm_pop_root(vm);
            if (rc < 0) return -1;
        }
    }
    if (!m->modules) return run_state_dict_hooks(vm, self, dest, prefix, result);
    if (vm_check_recursion(vm, " in state_dict") < 0) return -1;
    int64_t pos = 0;
    Value k, child;
    int rc = 0;
    while (rc == 0 && dict_next(m->modules, &pos, &k, &child)) {
        if (val_is_none(child) || !nn_is_module(vm, child)) continue;
        StrObj *sub = str_printf(vm, "%s%s.", prefix->data, AS_STR(k)->data);
        if (!sub) {
            rc = -1;
            break;
        }
        vm_push_root(vm, val_obj(sub));
        rc = save_state(vm, child, dest, meta, sub, keep_vars, NULL);
        vm_pop_root(vm);
    }
    vm_leave_recursion(vm);
    return rc < 0 ? -1 : run_state_dict_hooks(vm, self, dest, prefix, result);
}

static Value m_state_dict(ARGS) {
    static const char *const names[] = {"self", "destination", "prefix", "keep_vars"};
    Value a[4];
    if (argc > 1)
        return vm_raise(vm, vm->e_NotImplementedError, "positional arguments to state_dict() are not supported");
    if (native_parse_args(vm, "state_dict", argc, argv, kw, 1, 1, names, 4, a) < 0) return val_null();
    StrObj *prefix = opt_prefix(vm, a[2]);
    int keep = opt_bool(vm, a[3], false);
    if (!prefix || keep < 0) return val_null();
    DictObj *dest, *meta = NULL;
    if (val_is_null(a[1]) || val_is_none(a[1])) {
        dest = nn_odict_new(vm);
        if (!dest) return val_null();
        vm_push_root(vm, val_obj(dest));
        meta = nn_odict_new(vm);
        int rc = -1;
        if (meta) {
            vm_push_root(vm, val_obj(meta));
            Value name = vm_intern(vm, "_metadata");
            rc = val_is_null(name) ? -1 : vm_setattr(vm, val_obj(dest), AS_STR(name), val_obj(meta));
            vm_pop_root(vm);
        }
        vm_pop_root(vm);
        if (rc < 0) return val_null();
    } else if (vm_isinstance_type(vm, a[1], vm->t_dict)) {
        dest = AS_DICT(a[1]);
        /* a destination with _metadata gets the versions too */
        Value mv = vm_getattr_c(vm, a[1], "_metadata");
        if (val_is_null(mv)) vm_clear_exc(vm);
        else if (vm_isinstance_type(vm, mv, vm->t_dict)) meta = AS_DICT(mv);
    } else {
        return vm_raise(vm, vm->e_TypeError, "state_dict(): destination must be a dict, not %s", vm_type_name(vm, a[1]));
    }
    vm_push_root(vm, val_obj(dest));
    Value result = val_obj(dest);
    int rc = save_state(vm, a[0], dest, meta, prefix, keep, &result);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : result;
}

typedef struct LoadCtx {
    DictObj *sd;
    ListObj *missing, *unexpected, *errors;
    DictObj *meta;   /* the checkpoint's _metadata (module versions by prefix), or NULL */
} LoadCtx;

static int add_error(VM *vm, ListObj *l, StrObj *s) { return s ? list_append(vm, l, val_obj(s)) : -1; }

static StrObj *repr_str(VM *vm, Value v) {
    Value r = vm_repr(vm, v);
    return val_is_null(r) ? NULL : AS_STR(r);
}

static StrObj *size_repr(VM *vm, Tensor *t) {
    Value s = torch_size_new(vm, tensor_ndim(t), tensor_shape(t));
    if (val_is_null(s)) return NULL;
    vm_push_root(vm, s);
    StrObj *r = repr_str(vm, s);
    vm_pop_root(vm);
    return r;
}

static bool same_shape(Tensor *a, Tensor *b) {
    if (tensor_ndim(a) != tensor_ndim(b)) return false;
    for (int i = 0; i < tensor_ndim(a); i++)
        if (tensor_shape(a)[i] != tensor_shape(b)[i]) return false;
    return true;
}

/* One local tensor of a module: copy the checkpoint's value into it, or record why not. */
static int load_one(VM *vm, LoadCtx *c, StrObj *key, Value param) {
    Value input;
    int found = dict_lookup(vm, c->sd, val_obj(key), &input);
    if (found < 0) return -1;
    if (!found) return list_append(vm, c->missing, val_obj(key));
    if (!torch_is_tensor(vm, input)) {
        TypeObj *it = vm_type_of(vm, input);
        StrObj *tn = type_repr_name(vm, it);
        return add_error(vm, c->errors,
                         tn ? str_printf(vm,
                                         "While copying the parameter named \"%s\", expected torch.Tensor or "
                                         "Tensor-like object from checkpoint but received <class '%s'>",
                                         key->data, tn->data)
                            : NULL);
    }
    Tensor *p = torch_tensor_of(param), *in = torch_tensor_of(input);
    Tensor *owned = NULL;
    if (tensor_ndim(p) == 0 && tensor_ndim(in) == 1) {
        owned = tensor_select(in, 0, 0);
        if (!owned) {
            torch_raise_error(vm);
            return -1;
        }
        in = owned;
    }
    int rc = 0;
    if (!same_shape(p, in)) {
        StrObj *s1 = size_repr(vm, in);
        if (s1) vm_push_root(vm, val_obj(s1));
        StrObj *s2 = s1 ? size_repr(vm, p) : NULL;
        rc = add_error(vm, c->errors,
                       s2 ? str_printf(vm,
                                       "size mismatch for %s: copying a param with shape %s from checkpoint, the "
                                       "shape in current model is %s.",
                                       key->data, s1->data, s2->data)
                          : NULL);
        if (s1) vm_pop_root(vm);
    } else {
        bool prev = ag_set_grad_enabled(false);
        int crc = tensor_copy_(p, in);
        ag_set_grad_enabled(prev);
        if (crc < 0) {
            torch_raise_error(vm);
            Value ex = vm_fetch_exc(vm);
            vm_push_root(vm, ex);
            Value exargs = vm_getattr_c(vm, ex, "args");
            StrObj *ar = val_is_null(exargs) ? NULL : repr_str(vm, exargs);
            if (ar) vm_push_root(vm, val_obj(ar));
            StrObj *s1 = ar ? size_repr(vm, p) : NULL;
            if (s1) vm_push_root(vm, val_obj(s1));
            StrObj *s2 = s1 ? size_repr(vm, in) : NULL;
            rc = add_error(vm, c->errors,
                           s2 ? str_printf(vm,
                                           "While copying the parameter named \"%s\", whose dimensions in the model "
                                           "are %s and whose dimensions in the checkpoint are %s, an exception "
                                           "occurred : %s.",
                                           key->data, s1->data, s2->data, ar->data)
                              : NULL);
            vm_pop_roots(vm, 1 + (ar ? 1 : 0) + (s1 ? 1 : 0));
        }
    }
    if (owned) tensor_decref(owned);
    return rc;
}

/* _load_state_dict_pre_hooks before the module loads its own entries: hook(state_dict, prefix,
 * local_metadata, strict, missing_keys, unexpected_keys, error_msgs), strict=True as PyTorch's
 * load() passes it; local_metadata is state_dict._metadata[prefix[:-1]], else {}. */
static int run_load_pre_hooks(VM *vm, LoadCtx *c, DictObj *hooks, StrObj *prefix) {
    Value mdv = val_null();
    if (c->meta) {
        StrObj *key = str_new(vm, prefix->data, prefix->len ? prefix->len - 1 : 0);
        if (!key) return -1;
        vm_push_root(vm, val_obj(key));
        mdv = dict_get_str(c->meta, key);
        vm_pop_root(vm);
        if (!val_is_null(mdv) && !vm_isinstance_type(vm, mdv, vm->t_dict)) mdv = val_null();
    }
    DictObj *md = val_is_null(mdv) ? dict_new(vm) : AS_DICT(mdv);
    if (!md) return -1;
    vm_push_root(vm, val_obj(md));
    ListObj *fns = list_new(vm, 0);
    int rc = fns ? 0 : -1;
    if (fns) vm_push_root(vm, val_obj(fns));
    int64_t pos = 0;
    Value k, v;
    while (rc == 0 && dict_next(hooks, &pos, &k, &v)) rc = list_append(vm, fns, v);
    for (int64_t i = 0; rc == 0 && i < fns->len; i++) {
        Value args[7] = {val_obj(c->sd), val_obj(prefix), val_obj(md), val_bool(true),
                         val_obj(c->missing), val_obj(c->unexpected), val_obj(c->errors)};
        if (val_is_null(vm_call(vm, fns->items[i], 7, args, NULL))) rc = -1;
    }
    vm_pop_roots(vm, fns ? 2 : 1);
    return rc;
}

static int load_rec(VM *vm, LoadCtx *c, Value self, StrObj *prefix) {
    NnModuleObj *m = NNMOD(self);
    if (!nn_dict_empty(m->hooks[NN_HOOKS_LOAD_PRE]) && run_load_pre_hooks(vm, c, m->hooks[NN_HOOKS_LOAD_PRE], prefix) < 0)
        return -1;
    /* local_state: non-None parameters, then persistent buffers */
    DictObj *local = dict_new(vm);
    if (!local) return -1;
    vm_push_root(vm, val_obj(local));
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        DictObj *d = pass ? m->buffers : m->parameters;
        if (!d) continue;
        int64_t pos = 0;
        Value k, v;
        while (rc == 0 && dict_next(d, &pos, &k, &v)) {
            if (val_is_none(v)) continue;
            if (pass && m->non_persistent && set_contains(vm, m->non_persistent, k) == 1) continue;
            rc = dict_set(vm, local, k, v);
        }
    }
    int64_t pos = 0;
    Value k, v;
    while (rc == 0 && dict_next(local, &pos, &k, &v)) {
        StrObj *key = str_concat(vm, prefix, AS_STR(k));
        if (!key) {
            rc = -1;
            break;
        }
        vm_push_root(vm, val_obj(key));
        rc = torch_is_tensor(vm, v) ? load_one(vm, c, key, v) : 0;
        vm_pop_root(vm);
    }
    if (rc == 0) {   /* collected even when not strict (PyTorch passes strict=True here) */
        pos = 0;
        while (rc == 0 && dict_next(c->sd, &pos, &k, &v)) {
            if (!val_is_str(vm, k)) continue;
            StrObj *key = AS_STR(k);
            if (key->len < prefix->len || memcmp(key->data, prefix->data, (size_t)prefix->len) != 0) continue;
            if (str_eq_c(key, "_extra_state") && prefix->len == 0) continue;
            const char *rest = key->data + prefix->len;
            const char *dot = strchr(rest, '.');
            StrObj *input_name = str_new(vm, rest, dot ? dot - rest : (int64_t)strlen(rest));
            if (!input_name) {
                rc = -1;
                break;
            }
            bool known = (m->modules && !val_is_null(dict_get_str(m->modules, input_name))) ||
                         !val_is_null(dict_get_str(local, input_name));
            if (!known) rc = list_append(vm, c->unexpected, k);
        }
    }
    vm_pop_root(vm);
    if (rc < 0 || !m->modules) return rc;
    if (vm_check_recursion(vm, " in load_state_dict") < 0) return -1;
    pos = 0;
    Value child;
    while (rc == 0 && dict_next(m->modules, &pos, &k, &child)) {
        if (val_is_none(child) || !nn_is_module(vm, child)) continue;
        StrObj *sub = str_printf(vm, "%s%s.", prefix->data, AS_STR(k)->data);
        if (!sub) {
            rc = -1;
            break;
        }
        vm_push_root(vm, val_obj(sub));
        rc = load_rec(vm, c, child, sub);
        vm_pop_root(vm);
    }
    vm_leave_recursion(vm);
    return rc;
}

/* ', '.join(f'"{k}"' for k in keys) */
static void join_quoted(StrBuf *b, ListObj *keys) {
    for (int64_t i = 0; i < keys->len; i++) {
        if (i) sb_adds(b, ", ");
        sb_addc(b, '"');
        sb_add_str(b, AS_STR(keys->items[i]));
        sb_addc(b, '"');
    }
}

static Value m_load_state_dict(ARGS) {
    static const char *const names[] = {"self", "state_dict", "strict", "assign"};
    Value a[4];
    if (native_parse_args(vm, "load_state_dict", argc, argv, kw, 4, 2, names, 4, a) < 0) return val_null();
    if (!vm_isinstance_type(vm, a[1], vm->t_dict)) {
        StrObj *tn = type_repr_name(vm, vm_type_of(vm, a[1]));
        return tn ? vm_raise(vm, vm->e_TypeError, "Expected state_dict to be dict-like, got <class '%s'>.", tn->data)
                  : val_null();
    }
    int strict = opt_bool(vm, a[2], true), assign = opt_bool(vm, a[3], false);
    if (strict < 0 || assign < 0) return val_null();
    if (assign) return vm_raise(vm, vm->e_NotImplementedError, "load_state_dict(assign=True) is not supported");
    Value ik = nn_lib_attr(vm, &nn_state(vm)->incompatible_keys, "torch.nn.modules.module", "_IncompatibleKeys");
    if (val_is_null(ik)) return ik;
    LoadCtx c = {dict_copy(vm, AS_DICT(a[1])), NULL, NULL, NULL, NULL};   /* PyTorch loads from a copy */
    if (!c.sd) return val_null();
    int base = vm->roots.n;
    vm_push_root(vm, val_obj(c.sd));
    Value mv = vm_getattr_c(vm, a[1], "_metadata");   /* kept alive by a[1] */
    if (val_is_null(mv)) vm_clear_exc(vm);
    else if (vm_isinstance_type(vm, mv, vm->t_dict)) c.meta = AS_DICT(mv);
    if (!(c.missing = list_new(vm, 0))) goto fail;
    vm_push_root(vm, val_obj(c.missing));
    if (!(c.unexpected = list_new(vm, 0))) goto fail;
    vm_push_root(vm, val_obj(c.unexpected));
    if (!(c.errors = list_new(vm, 0))) goto fail;
    vm_push_root(vm, val_obj(c.errors));
    if (load_rec(vm, &c, a[0], vm->empty_str) < 0) goto fail;
    if (strict) {
        StrBuf b;
        if (c.unexpected->len) {
            sb_init(&b);
            sb_adds(&b, "Unexpected key(s) in state_dict: ");
            join_quoted(&b, c.unexpected);
            sb_adds(&b, ". ");
            StrObj *s = sb_finish(vm, &b);
            if (!s || list_insert(vm, c.errors, 0, val_obj(s)) < 0) goto fail;
        }
        if (c.missing->len) {
            sb_init(&b);
            sb_adds(&b, "Missing key(s) in state_dict: ");
            join_quoted(&b, c.missing);
            sb_adds(&b, ". ");
            StrObj *s = sb_finish(vm, &b);
            if (!s || list_insert(vm, c.errors, 0, val_obj(s)) < 0) goto fail;
        }
    }
    if (c.errors->len) {
        StrBuf b;
        sb_init(&b);
        sb_printf(&b, "Error(s) in loading state_dict for %s:\n\t", vm_type_name(vm, a[0]));
        for (int64_t i = 0; i < c.errors->len; i++) {
            if (i) sb_adds(&b, "\n\t");
            sb_add_str(&b, AS_STR(c.errors->items[i]));
        }
        StrObj *s = sb_finish(vm, &b);
        if (s) vm_raise_str(vm, vm->e_RuntimeError, s);
        goto fail;
    }
    Value r = vm_call2(vm, ik, val_obj(c.missing), val_obj(c.unexpected));
    vm->roots.n = base;
    return r;
fail:
    vm->roots.n = base;
    return val_null();
}

/* ---- copy.copy / copy.deepcopy ----------------------------------------------------------------------- */

/* The module's state lives in C fields, not in its __dict__ as in PyTorch, so copying goes
 * through these instead of copy's __dict__ reconstruction: a shallow copy shares the state dicts
 * (as copy.copy of a PyTorch module shares its __dict__ values), a deep copy deep-copies each. */
static Value module_copy(VM *vm, Value self, Value memo, bool deep) {
    NnModuleObj *m = NNMOD(self);
    Value deepcopy = val_null();
    if (deep) {
        Value mod = vm_import_module(vm, "copy");
        if (val_is_null(mod)) return mod;
        deepcopy = vm_getattr_c(vm, mod, "deepcopy");
        if (val_is_null(deepcopy)) return deepcopy;
    }
    vm_push_root(vm, deepcopy);
    Value y = type_alloc_instance(vm, self.as.o->type);
    if (val_is_null(y)) {
        vm_pop_root(vm);
        return y;
    }
    vm_push_root(vm, y);
    NnModuleObj *n = NNMOD(y);
    if (deep && vm_isinstance_type(vm, memo, vm->t_dict) &&
        dict_set(vm, AS_DICT(memo), val_int((int64_t)(uintptr_t)self.as.o), y) < 0)
        goto fail;
    Obj **src[NN_HOOKS_COUNT + 5], **dst[NN_HOOKS_COUNT + 5];
    int k = 0;
    src[k] = (Obj **)&m->dict, dst[k++] = (Obj **)&n->dict;
    src[k] = (Obj **)&m->parameters, dst[k++] = (Obj **)&n->parameters;
    src[k] = (Obj **)&m->buffers, dst[k++] = (Obj **)&n->buffers;
    src[k] = (Obj **)&m->modules, dst[k++] = (Obj **)&n->modules;
    src[k] = (Obj **)&m->non_persistent, dst[k++] = (Obj **)&n->non_persistent;
    for (int i = 0; i < NN_HOOKS_COUNT; i++) src[k] = (Obj **)&m->hooks[i], dst[k++] = (Obj **)&n->hooks[i];
    for (int i = 0; i < k; i++) {
        if (!*src[i]) continue;
        if (!deep) {
            *dst[i] = *src[i];
            continue;
        }
        Value args[2] = {val_obj(*src[i]), memo};
        Value c = vm_call(vm, deepcopy, 2, args, NULL);
        if (val_is_null(c)) goto fail;
        if (!val_is_obj(c) || c.as.o->type->layout != (*src[i])->type->layout) {
            vm_raise(vm, vm->e_TypeError, "deepcopy of a module's state returned a %s", vm_type_name(vm, c));
            goto fail;
        }
        *dst[i] = c.as.o;
    }
    n->training = m->training;
    n->is_full_backward_hook = m->is_full_backward_hook;
    vm_pop_roots(vm, 2);
    return y;
fail:
    vm_pop_roots(vm, 2);
    return val_null();
}

static Value m_copy(ARGS) {
    if (native_check_args(vm, "__copy__", argc, kw, 1, 1) < 0) return val_null();
    return module_copy(vm, argv[0], val_null(), false);
}

static Value m_deepcopy(ARGS) {
    if (native_check_args(vm, "__deepcopy__", argc, kw, 2, 2) < 0) return val_null();
    return module_copy(vm, argv[0], argv[1], true);
}

/* ---- repr ------------------------------------------------------------------------------------------- */

/* _addindent(s, 2): every line after the first indented by two spaces */
static void add_indented(StrBuf *b, const StrObj *s) {
    for (int64_t i = 0; i < s->len; i++) {
        sb_addc(b, s->data[i]);
        if (s->data[i] == '\n') sb_adds(b, "  ");
    }
}

static Value m_repr(ARGS) {
    Value self = argv[0];
    NnModuleObj *m = NNMOD(self);
    int r = repr_enter(vm, self.as.o);
    if (r < 0) return val_null();
    if (r > 0) return vm_intern(vm, "...");
    Value extra = vm_call_method(vm, self, "extra_repr", 0, NULL);
    if (val_is_null(extra)) goto fail;
    if (!val_is_str(vm, extra)) {
        vm_raise(vm, vm->e_TypeError, "extra_repr() must return a str, not %s", vm_type_name(vm, extra));
        goto fail;
    }
    vm_push_root(vm, extra);
    ListObj *children = list_new(vm, 0);   /* "(key): repr" strings */
    if (!children) {
        vm_pop_root(vm);
        goto fail;
    }
    vm_push_root(vm, val_obj(children));
    int64_t pos = 0;
    Value k, child;
    while (m->modules && dict_next(m->modules, &pos, &k, &child)) {
        Value cr = vm_repr(vm, child);
        if (val_is_null(cr)) {
            vm_pop_roots(vm, 2);
            goto fail;
        }
        StrBuf b;
        sb_init(&b);
        sb_addc(&b, '(');
        sb_add_str(&b, AS_STR(k));
        sb_adds(&b, "): ");
        add_indented(&b, AS_STR(cr));
        StrObj *line = sb_finish(vm, &b);
        if (!line || list_append(vm, children, val_obj(line)) < 0) {
            vm_pop_roots(vm, 2);
            goto fail;
        }
    }
    StrObj *ex = AS_STR(extra);
    int64_t n_extra = 0;
    if (ex->len) {
        n_extra = 1;
        for (int64_t i = 0; i < ex->len; i++) n_extra += ex->data[i] == '\n';
    }
    StrBuf b;
    sb_init(&b);
    sb_adds(&b, vm_type_name(vm, self));
    sb_addc(&b, '(');
    if (n_extra || children->len) {
        if (n_extra == 1 && children->len == 0) {
            sb_add_str(&b, ex);
        } else {
            sb_adds(&b, "\n  ");
            bool first = true;
            if (n_extra) {
                for (int64_t i = 0; i < ex->len; i++) {
                    sb_addc(&b, ex->data[i]);
                    if (ex->data[i] == '\n') sb_adds(&b, "  ");
                }
                first = false;
            }
            for (int64_t i = 0; i < children->len; i++) {
                if (!first) sb_adds(&b, "\n  ");
                first = false;
                sb_add_str(&b, AS_STR(children->items[i]));
            }
            sb_addc(&b, '\n');
        }
    }
    sb_addc(&b, ')');
    vm_pop_roots(vm, 2);
    repr_leave(vm, self.as.o);
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
fail:
    repr_leave(vm, self.as.o);
    return val_null();
}

static Value m_extra_repr(ARGS) { return val_obj(vm->empty_str); }

static Value m_get_name(ARGS) { return val_obj(vm_type_of(vm, argv[0])->name); }

/* ---- attribute descriptors -------------------------------------------------------------------------- */

static Value get_training(VM *vm, Value s, void *c) {
    if (nn_check_init(vm, s, "training") < 0) return val_null();
    return val_bool(NNMOD(s)->training);
}

static int set_training(VM *vm, Value s, Value v, void *c) {
    if (val_is_null(v)) {
        vm_raise(vm, vm->e_AttributeError, "cannot delete attribute 'training'");
        return -1;
    }
    int t = vm_truthy(vm, v);
    if (t < 0) return -1;
    NNMOD(s)->training = t;
    return 0;
}

/* closure: pointer to the DictObj * field inside the module, as an offset */
static Value get_state_dict_field(VM *vm, Value s, void *c) {
    size_t off = (size_t)(uintptr_t)c;
    const char *name = off == offsetof(NnModuleObj, parameters) ? "_parameters"
                       : off == offsetof(NnModuleObj, buffers) ? "_buffers"
                                                                : "_modules";
    if (nn_check_init(vm, s, name) < 0) return val_null();
    DictObj *d = *(DictObj **)((char *)s.as.o + off);
    return val_obj(d);
}

static int set_dict_field(VM *vm, Value s, Value v, void *c, const char *name) {
    if (val_is_null(v) || !vm_isinstance_type(vm, v, vm->t_dict)) {
        vm_raise(vm, vm->e_TypeError, "%s must be a dict", name);
        return -1;
    }
    *(DictObj **)((char *)s.as.o + (size_t)(uintptr_t)c) = AS_DICT(v);
    return 0;
}

static int set_state_dict_field(VM *vm, Value s, Value v, void *c) { return set_dict_field(vm, s, v, c, "module state"); }

static Value get_non_persistent(VM *vm, Value s, void *c) {
    if (nn_check_init(vm, s, "_non_persistent_buffers_set") < 0) return val_null();
    return val_obj(NNMOD(s)->non_persistent);
}

static int set_non_persistent(VM *vm, Value s, Value v, void *c) {
    if (val_is_null(v) || !vm_isinstance_type(vm, v, vm->t_set)) {
        vm_raise(vm, vm->e_TypeError, "_non_persistent_buffers_set must be a set");
        return -1;
    }
    NNMOD(s)->non_persistent = (SetObj *)v.as.o;
    return 0;
}

static const char *const hook_dict_names[] = {
#define X(e, s) s,
    NN_HOOK_DICTS(X)
#undef X
};

static Value get_hook_dict(VM *vm, Value s, void *c) {
    NnHookDict which = (NnHookDict)(uintptr_t)c;
    if (nn_check_init(vm, s, hook_dict_names[which]) < 0) return val_null();
    DictObj *d = nn_hook_dict(vm, NNMOD(s), which);
    return d ? val_obj(d) : val_null();
}

static int set_hook_dict(VM *vm, Value s, Value v, void *c) {
    if (val_is_null(v) || !vm_isinstance_type(vm, v, vm->t_dict)) {
        vm_raise(vm, vm->e_TypeError, "%s must be a dict", hook_dict_names[(uintptr_t)c]);
        return -1;
    }
    NNMOD(s)->hooks[(uintptr_t)c] = AS_DICT(v);
    return 0;
}

static Value get_is_full(VM *vm, Value s, void *c) {
    if (nn_check_init(vm, s, "_is_full_backward_hook") < 0) return val_null();
    Value v = NNMOD(s)->is_full_backward_hook;
    return val_is_null(v) ? val_none() : v;
}

static int set_is_full(VM *vm, Value s, Value v, void *c) {
    NNMOD(s)->is_full_backward_hook = val_is_null(v) ? val_none() : v;
    return 0;
}

/* ---- registration of the type ---------------------------------------------------------------------- */

static void nn_state_trace(VM *vm, void *p) {
    NnState *ns = p;
    gc_mark(vm, ns->t_module);
    gc_mark(vm, ns->t_parameter);
    for (int i = 0; i < NN_GLOBAL_COUNT; i++) gc_mark(vm, ns->global[i]);
    gc_mark_value(vm, ns->global_is_full_backward_hook);
    gc_mark_value(vm, ns->removable_handle);
    gc_mark_value(vm, ns->backward_hook);
    gc_mark_value(vm, ns->incompatible_keys);
    gc_mark(vm, ns->s_forward);
    gc_mark(vm, ns->fwd_type);
    gc_mark_value(vm, ns->fwd_fn);
    gc_mark_value(vm, ns->fx_call_hook);
    gc_mark_value(vm, ns->fx_getattr_hook);
}

static void nn_state_free(VM *vm, void *p) { free(p); }

static Value f_set_parameter_class(ARGS) {
    if (argc != 1 || !val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_type) ||
        !type_is_subtype(AS_TYPE(argv[0]), torch_state(vm)->t_tensor))
        return vm_raise(vm, vm->e_TypeError, "_set_parameter_class(cls): cls must be a Tensor subclass");
    nn_state(vm)->t_parameter = AS_TYPE(argv[0]);
    return val_none();
}

static int nn_module_init(VM *vm, Value mod) {
    if (!nn_state(vm)) {
        NnState *ns = calloc(1, sizeof *ns);
        if (!ns) {
            vm_no_memory(vm);
            return -1;
        }
        ns->global_is_full_backward_hook = val_none();
        ns->fx_call_hook = ns->fx_getattr_hook = ns->fwd_fn = val_null();
        vm->ext[NN_EXT] = ns;
        vm->ext_trace[NN_EXT] = nn_state_trace;
        vm->ext_free[NN_EXT] = nn_state_free;
    }
    NnState *ns = nn_state(vm);
    if (!(ns->s_forward = vm_intern_str(vm, "forward"))) return -1;
    ns->t_module = type_new_builtin(vm, "Module", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(NnModuleObj),
                                    offsetof(NnModuleObj, dict), nn_module_trace, NULL, TYPEF_BASETYPE);
    if (!ns->t_module) return -1;
    ns->t_module->module = vm_intern(vm, "torch.nn.modules.module");
    static const MethodDef methods[] = {
        {"__init__", m_init, NATIVEF_METHOD},
        {"__call__", nn_module_call_native, NATIVEF_METHOD},
        {"forward", m_forward_unimplemented, NATIVEF_METHOD},
        {"__getattr__", m_getattr, NATIVEF_METHOD},
        {"__setattr__", m_setattr, NATIVEF_METHOD},
        {"__delattr__", m_delattr, NATIVEF_METHOD},
        {"__repr__", m_repr, NATIVEF_METHOD},
        {"extra_repr", m_extra_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"_get_name", m_get_name, NATIVEF_METHOD | ARITY_NOARGS},
        {"register_parameter", m_register_parameter, NATIVEF_METHOD},
        {"register_buffer", m_register_buffer, NATIVEF_METHOD},
        {"add_module", m_add_module, NATIVEF_METHOD},
        {"register_module", m_add_module, NATIVEF_METHOD},
        {"get_submodule", m_get_submodule, NATIVEF_METHOD},
        {"named_children", m_named_children, NATIVEF_METHOD},
        {"children", m_children, NATIVEF_METHOD},
        {"named_modules", m_named_modules, NATIVEF_METHOD},
        {"modules", m_modules, NATIVEF_METHOD},
        {"named_parameters", m_named_parameters, NATIVEF_METHOD},
        {"parameters", m_parameters, NATIVEF_METHOD},
        {"named_buffers", m_named_buffers, NATIVEF_METHOD},
        {"buffers", m_buffers, NATIVEF_METHOD},
        {"state_dict", m_state_dict, NATIVEF_METHOD},
        {"load_state_dict", m_load_state_dict, NATIVEF_METHOD},
        {"train", m_train, NATIVEF_METHOD},
        {"eval", m_eval, NATIVEF_METHOD},
        {"share_memory", m_share_memory, NATIVEF_METHOD},
        {"apply", m_apply, NATIVEF_METHOD},
        {"zero_grad", m_zero_grad, NATIVEF_METHOD},
        {"requires_grad_", m_requires_grad_, NATIVEF_METHOD},
        {"to", m_to, NATIVEF_METHOD},
        {"cpu", m_identity_conv, NATIVEF_METHOD | ARITY_NOARGS},
        {"float", m_dtype_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_FLOAT32},
        {"double", m_dtype_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_FLOAT64},
        {"half", m_dtype_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_FLOAT16},
        {"bfloat16", m_dtype_conv, NATIVEF_METHOD, (void *)(intptr_t)TENSOR_BFLOAT16},
        {"__copy__", m_copy, NATIVEF_METHOD},
        {"__getstate__", m_getstate, NATIVEF_METHOD},
        {"__setstate__", m_setstate, NATIVEF_METHOD},
        {"__deepcopy__", m_deepcopy, NATIVEF_METHOD},
        {NULL}};
    static GetSetDef getsets[NN_HOOKS_COUNT + 8];
    int g = 0;
    getsets[g++] = (GetSetDef){"training", get_training, set_training, NULL};
    getsets[g++] = (GetSetDef){"_parameters", get_state_dict_field, set_state_dict_field,
                               (void *)(uintptr_t)offsetof(NnModuleObj, parameters)};
    getsets[g++] = (GetSetDef){"_buffers", get_state_dict_field, set_state_dict_field,
                               (void *)(uintptr_t)offsetof(NnModuleObj, buffers)};
    getsets[g++] = (GetSetDef){"_modules", get_state_dict_field, set_state_dict_field,
                               (void *)(uintptr_t)offsetof(NnModuleObj, modules)};
    getsets[g++] = (GetSetDef){"_non_persistent_buffers_set", get_non_persistent, set_non_persistent, NULL};
    getsets[g++] = (GetSetDef){"_is_full_backward_hook", get_is_full, set_is_full, NULL};
    for (int i = 0; i < NN_HOOKS_COUNT; i++)
        getsets[g++] = (GetSetDef){hook_dict_names[i], get_hook_dict, set_hook_dict, (void *)(uintptr_t)i};
    getsets[g] = (GetSetDef){NULL};
    if (type_add_methods(vm, ns->t_module, methods) < 0 || type_add_methods(vm, ns->t_module, nn_module_hook_methods) < 0 ||
        type_add_getsets(vm, ns->t_module, getsets) < 0)
        return -1;
    if (dict_set_c(vm, ns->t_module->dict, "call_super_init", val_bool(false)) < 0 ||
        dict_set_c(vm, ns->t_module->dict, "_version", val_int(1)) < 0 ||
        dict_set_c(vm, ns->t_module->dict, "dump_patches", val_bool(false)) < 0)
        return -1;
    static const char *const global_names[] = {
#define X(e, s) s,
        NN_GLOBAL_HOOK_DICTS(X)
#undef X
    };
    for (int i = 0; i < NN_GLOBAL_COUNT; i++) {
        if (!(ns->global[i] = nn_odict_new(vm))) return -1;
        if (module_set(vm, mod, global_names[i], val_obj(ns->global[i])) < 0) return -1;
    }
    static const MethodDef fns[] = {{"_set_parameter_class", f_set_parameter_class},
                                    {"_orig_module_call", nn_orig_module_call},
                                    {"_set_fx_hooks", nn_set_fx_hooks},
                                    {NULL}};
    if (module_add_functions(vm, mod, fns) < 0 || module_add_functions(vm, mod, nn_module_functions) < 0) return -1;
    if (module_set(vm, mod, "_OrderedDict", val_obj(vm->t_ordereddict)) < 0) return -1;
    /* copy.deepcopy of a module deep-copies its tensors (Tensor.__deepcopy__, tensor_copy.c) */
    if (torch_tensor_copy_init(vm) < 0) return -1;
    return module_set(vm, mod, "Module", val_obj(ns->t_module));
}

void torch_nn_register(VM *vm) {
    vm_register_native_module(vm, "torch._C._nn_module", nn_module_init);
    torch_optim_register(vm);
}
