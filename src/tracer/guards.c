/* src/tracer/guards.c — guards: what must still hold for a compiled entry to be reused (types,
 * identities, constant values, tensor metadata, lengths, dict keys, attribute presence, grad
 * mode, aliasing between inputs, empty module hook dicts).  The tracer adds them as it
 * specialises; a cache entry checks them on every call by reading each source statically, with
 * no allocation and no script code.  Failures are described the way dynamo's recompile log
 * describes them. */
#include <stdio.h>
#include <string.h>

#include "ember/autograd.h"
#include "src/torch/module.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/str.h"

/* ---- adding ------------------------------------------------------------------------------------ */

static bool same_guard(const Guard *a, const Guard *b) {
    if (a->kind != b->kind || !source_equal(a->source, b->source)) return false;
    switch (a->kind) {
    case G_HASATTR: case G_HOOKS_EMPTY: return str_eq(a->name, b->name);
    case G_SAME: case G_NOT_SAME: return source_equal(a->other, b->other);
    default: return true;
    }
}

void guard_add(Tracer *tr, Guard g) {
    /* aliasing guards are made once per pair of new inputs: never duplicates, and the most
     * numerous (n^2/2), so they skip the linear search */
    if (g.kind != G_NOT_SAME)
        for (int i = 0; i < tr->n_guards; i++)
            if (same_guard(&tr->guards[i], &g)) return;
    if (tr->n_guards == tr->cap_guards) {
        int32_t cap = tr->cap_guards ? tr->cap_guards * 2 : 32;
        Guard *ng = trace_arena_alloc(&tr->arena, sizeof(Guard) * (size_t)cap);
        if (tr->n_guards) memcpy(ng, tr->guards, sizeof(Guard) * (size_t)tr->n_guards);
        tr->guards = ng;
        tr->cap_guards = cap;
    }
    /* the line of the traced frame itself (logs print it with that frame's file) */
    g.line = tr->root ? code_line(tr->root->code, tr->root->ip) : trace_current_line(tr);
    trace_keep(tr, g.expected);
    tr->guards[tr->n_guards++] = g;
}

static Guard base_guard(GuardKind kind, Source *s) {
    Guard g;
    memset(&g, 0, sizeof g);
    g.kind = kind;
    g.source = s;
    g.expected = val_null();
    return g;
}

void guard_type(Tracer *tr, Source *s, TypeObj *t) {
    if (!s) return;
    Guard g = base_guard(G_TYPE, s);
    g.expected = val_obj(t);
    guard_add(tr, g);
}

void guard_id(Tracer *tr, Source *s, Value v) {
    if (!s) return;
    Guard g = base_guard(G_ID, s);
    g.expected = v;
    guard_add(tr, g);
}

void guard_equals(Tracer *tr, Source *s, Value v) {
    if (!s) return;
    Guard g = base_guard(G_EQUALS, s);
    g.expected = v;
    guard_add(tr, g);
}

void guard_tensor(Tracer *tr, Source *s, Tensor *t, bool is_param) {
    if (!s) return;
    Guard g = base_guard(G_TENSOR, s);
    tensor_meta_of(t, &g.meta);
    g.requires_grad = ag_requires_grad(t);
    g.is_param = is_param;
    guard_add(tr, g);
}

void guard_storage_offset(Tracer *tr, Source *s, int64_t offset) {
    if (!s) return;
    Guard g = base_guard(G_STORAGE_OFFSET, s);
    g.n = offset;
    guard_add(tr, g);
}

void guard_len(Tracer *tr, Source *s, int64_t n) {
    if (!s) return;
    Guard g = base_guard(G_LEN, s);
    g.n = n;
    guard_add(tr, g);
}

void guard_dict_keys(Tracer *tr, Source *s, DictObj *d) {
    if (!s) return;
    VM *vm = tr->vm;
    TupleObj *keys = tuple_new(vm, d->used);
    if (!keys) {
        vm_clear_exc(vm);
        return;
    }
    int64_t pos = 0, i = 0;
    Value k, v;
    while (dict_next(d, &pos, &k, &v)) keys->items[i++] = k;
    Guard g = base_guard(G_DICT_KEYS, s);
    g.expected = val_obj(keys);
    guard_add(tr, g);
}

void guard_hasattr(Tracer *tr, Source *s, StrObj *name, bool present) {
    if (!s) return;
    Guard g = base_guard(G_HASATTR, s);
    g.name = name;
    g.flag = present;
    guard_add(tr, g);
}

void guard_absent(Tracer *tr, Source *s) {
    if (!s) return;
    guard_add(tr, base_guard(G_ABSENT, s));
}

/* ---- checking ------------------------------------------------------------------------------------ */

static const char *dtype_name(TensorDtype d) {
    switch (d) {
    case TENSOR_FLOAT32: return "Float";
    case TENSOR_INT64: return "Long";
    case TENSOR_BOOL: return "Bool";
    default: return "?";
    }
}

/* The name a recompile message gives a tensor: the local's name, else the source. */
static void short_name(const Source *s, char *buf, size_t cap) {
    if (s->kind == SRC_LOCAL || s->kind == SRC_CLOSURE) snprintf(buf, cap, "%s", s->name->data);
    else source_repr_buf(s, buf, cap);
}

static bool keys_match(VM *vm, DictObj *d, TupleObj *keys) {
    if (d->used != keys->len) return false;
    int64_t pos = 0, i = 0;
    Value k, v;
    while (dict_next(d, &pos, &k, &v)) {
        Value e = keys->items[i++];
        if (k.tag != e.tag) return false;
        if (k.tag == VAL_OBJ) {
            if (k.as.o == e.as.o) continue;
            if (val_is_str(vm, k) && val_is_str(vm, e) && str_eq(AS_STR(k), AS_STR(e))) continue;
            return false;
        }
        if (!val_identical(k, e)) return false;
    }
    return true;
}

static bool equals_value(VM *vm, Value v, Value e) {
    if (v.tag != e.tag) return false;
    if (v.tag == VAL_OBJ) {
        if (v.as.o == e.as.o) return true;
        if (v.as.o->type != e.as.o->type) return false;
        if (val_is_str(vm, v)) return str_eq(AS_STR(v), AS_STR(e));
        int r = vm_eq(vm, v, e);
        if (r < 0) vm_clear_exc(vm);
        return r == 1;
    }
    if (v.tag == VAL_FLOAT) return v.as.f == e.as.f || (v.as.f != v.as.f && e.as.f != e.as.f);
    return val_identical(v, e);
}

static int64_t container_len(VM *vm, Value v) {
    if (v.tag != VAL_OBJ) return -1;
    switch (v.as.o->type->layout) {
    case OBJ_LAYOUT_LIST: return ((ListObj *)v.as.o)->len;
    case OBJ_LAYOUT_TUPLE: return ((TupleObj *)v.as.o)->len;
    case OBJ_LAYOUT_DICT: return ((DictObj *)v.as.o)->used;
    default: return -1;
    }
}

/* The fast check every call pays: no formatting, no allocation, little stack. */
bool guard_check(VM *vm, Frame *f, const Guard *g) {
    Value v = g->source ? source_resolve_static(vm, f, g->source) : val_null();
    Value o = g->other ? source_resolve_static(vm, f, g->other) : val_null();
    return guard_check_values(vm, g, v, o);
}

static bool is_tensor(VM *vm, Value v) {
    TorchState *ts = torch_state(vm);
    return ts && !val_is_null(v) && v.tag == VAL_OBJ && vm_isinstance_type(vm, v, ts->t_tensor);
}

/* The check on resolved values (v: the source's, o: the other source's; VAL_NULL = missing). */
bool guard_check_values(VM *vm, const Guard *g, Value v, Value o) {
    switch (g->kind) {
    case G_GRAD_MODE: case G_SAVED_HOOKS: case G_DEFAULT_DTYPE: case G_AUTOCAST: case G_BACKEND:
        return guard_check_ambient(vm, g) == 1;
    case G_TYPE: return !val_is_null(v) && vm_type_of(vm, v) == (TypeObj *)g->expected.as.o;
    case G_ID: return !val_is_null(v) && val_identical(v, g->expected);
    case G_ABSENT: return val_is_null(v);
    case G_EQUALS: return !val_is_null(v) && equals_value(vm, v, g->expected);
    case G_TENSOR: {
        TorchState *ts = torch_state(vm);
        if (val_is_null(v) || v.tag != VAL_OBJ || !ts) return false;
        TypeObj *ty = v.as.o->type;
        NnState *ns = nn_state(vm);
        if (ty != ts->t_tensor && !(ns && ty == ns->t_parameter) && !vm_isinstance_type(vm, v, ts->t_tensor)) return false;
        Tensor *t = torch_tensor_of(v);
        if (tensor_dtype(t) != g->meta.dtype || tensor_ndim(t) != g->meta.ndim) return false;
        const int64_t *shape = tensor_shape(t), *strides = tensor_strides(t);
        for (int i = 0; i < g->meta.ndim; i++)
            if (shape[i] != g->meta.shape[i] || strides[i] != g->meta.strides[i]) return false;
        return ag_requires_grad(t) == g->requires_grad;
    }
    case G_STORAGE_OFFSET: return is_tensor(vm, v) && tensor_storage_offset(torch_tensor_of(v)) == g->n;
    case G_LEN: return container_len(vm, v) == g->n;
    case G_DICT_KEYS:
        return !val_is_null(v) && v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_DICT &&
               keys_match(vm, (DictObj *)v.as.o, AS_TUPLE(g->expected));
    case G_HASATTR: return (!val_is_null(v) && !val_is_null(trace_static_getattr(vm, v, g->name))) == g->flag;
    case G_SAME: case G_NOT_SAME: {
        bool same = !val_is_null(v) && !val_is_null(o) && val_identical(v, o);
        return same == (g->kind == G_SAME);
    }
    case G_HOOKS_EMPTY: {
        Value d = val_is_null(v) ? v : trace_static_getattr(vm, v, g->name);
        return val_is_null(d) || (d.tag == VAL_OBJ && d.as.o->type->layout == OBJ_LAYOUT_DICT && ((DictObj *)d.as.o)->used == 0);
    }
    case G_NN_NO_HOOKS:
        return !val_is_null(v) && nn_state(vm) && nn_is_module(vm, v) &&
               torch_module_has_no_hooks(vm, (NnModuleObj *)v.as.o);
    case G_NN_HOOKS:
        return !val_is_null(v) && nn_state(vm) && nn_is_module(vm, v) &&
               torch_module_hooks_match(vm, (NnModuleObj *)v.as.o, AS_TUPLE(g->expected));
    default: return true;
    }
}

const char *guard_failure(VM *vm, Frame *f, const Guard *g, char *buf, size_t cap) {
    if (guard_check(vm, f, g)) return NULL;
    if (g->kind == G_BACKEND) {
        snprintf(buf, cap, "the frame was compiled for another backend");
        return buf;
    }
    if (g->kind == G_GRAD_MODE) {
        if (ag_is_grad_enabled() == g->flag) return NULL;
        snprintf(buf, cap, "grad_mode changed: expected %s", g->flag ? "True" : "False");
        return buf;
    }
    if (g->kind == G_SAVED_HOOKS) {
        snprintf(buf, cap, "saved-tensor hooks %s", g->flag ? "were popped" : "were pushed");
        return buf;
    }
    if (g->kind == G_DEFAULT_DTYPE) {
        snprintf(buf, cap, "default dtype changed: expected %s", tensor_dtype_name((TensorDtype)g->expected.as.i));
        return buf;
    }
    if (g->kind == G_AUTOCAST) {
        if (g->expected.as.i < 0) snprintf(buf, cap, "autocast changed: expected it off");
        else snprintf(buf, cap, "autocast changed: expected it on with %s", tensor_dtype_name((TensorDtype)g->expected.as.i));
        return buf;
    }
    Value v = source_resolve_static(vm, f, g->source);
    char name[256], src[512];
    source_repr_buf(g->source, src, sizeof src);
    switch (g->kind) {
    case G_TYPE:
        if (!val_is_null(v) && vm_type_of(vm, v) == (TypeObj *)g->expected.as.o) return NULL;
        snprintf(buf, cap, "type(%s) is %s", src, ((TypeObj *)g->expected.as.o)->name->data);
        return buf;
    case G_ID:
        if (!val_is_null(v) && val_identical(v, g->expected)) return NULL;
        snprintf(buf, cap, "%s is the object the frame was compiled for", src);
        return buf;
    case G_EQUALS: {
        if (!val_is_null(v) && equals_value(vm, v, g->expected)) return NULL;
        Value r = vm_repr(vm, g->expected);
        snprintf(buf, cap, "%s == %s", src, val_is_null(r) ? "?" : AS_STR(r)->data);
        if (val_is_null(r)) vm_clear_exc(vm);
        return buf;
    }
    case G_TENSOR: {
        short_name(g->source, name, sizeof name);
        TorchState *ts = torch_state(vm);
        if (val_is_null(v) || !ts || !vm_isinstance_type(vm, v, ts->t_tensor)) {
            snprintf(buf, cap, "%s is a Tensor", src);
            return buf;
        }
        Tensor *t = torch_tensor_of(v);
        TensorMeta m;
        tensor_meta_of(t, &m);
        if (m.dtype != g->meta.dtype) {
            snprintf(buf, cap, "tensor '%s' dtype mismatch. expected %s, actual %s", name, dtype_name(g->meta.dtype),
                     dtype_name(m.dtype));
            return buf;
        }
        if (m.ndim != g->meta.ndim) {
            snprintf(buf, cap, "tensor '%s' rank mismatch. expected %d, actual %d", name, g->meta.ndim, m.ndim);
            return buf;
        }
        for (int i = 0; i < m.ndim; i++)
            if (m.shape[i] != g->meta.shape[i]) {
                snprintf(buf, cap, "tensor '%s' size mismatch at index %d. expected %lld, actual %lld", name, i,
                         (long long)g->meta.shape[i], (long long)m.shape[i]);
                return buf;
            }
        for (int i = 0; i < m.ndim; i++)
            if (m.strides[i] != g->meta.strides[i]) {
                snprintf(buf, cap, "tensor '%s' stride mismatch at index %d. expected %lld, actual %lld", name, i,
                         (long long)g->meta.strides[i], (long long)m.strides[i]);
                return buf;
            }
        if (ag_requires_grad(t) != g->requires_grad) {
            snprintf(buf, cap, "tensor '%s' requires_grad mismatch. expected requires_grad=%d", name,
                     g->requires_grad ? 1 : 0);
            return buf;
        }
        return NULL;
    }
    case G_STORAGE_OFFSET:
        short_name(g->source, name, sizeof name);
        if (!is_tensor(vm, v)) snprintf(buf, cap, "%s is a Tensor", src);
        else snprintf(buf, cap, "tensor '%s' storage offset mismatch. expected %lld, actual %lld", name, (long long)g->n,
                      (long long)tensor_storage_offset(torch_tensor_of(v)));
        return buf;
    case G_LEN:
        if (container_len(vm, v) == g->n) return NULL;
        snprintf(buf, cap, "len(%s) == %lld", src, (long long)g->n);
        return buf;
    case G_DICT_KEYS:
        if (!val_is_null(v) && v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_DICT &&
            keys_match(vm, (DictObj *)v.as.o, AS_TUPLE(g->expected)))
            return NULL;
        snprintf(buf, cap, "list(%s.keys()) == the keys at compile time", src);
        return buf;
    case G_HASATTR: {
        bool has = !val_is_null(v) && !val_is_null(trace_static_getattr(vm, v, g->name));
        if (has == g->flag) return NULL;
        snprintf(buf, cap, "hasattr(%s, '%s') == %s", src, g->name->data, g->flag ? "True" : "False");
        return buf;
    }
    case G_SAME: case G_NOT_SAME: {
        Value o = source_resolve_static(vm, f, g->other);
        bool same = !val_is_null(v) && !val_is_null(o) && val_identical(v, o);
        if (same == (g->kind == G_SAME)) return NULL;
        char osrc[512];
        source_repr_buf(g->other, osrc, sizeof osrc);
        snprintf(buf, cap, "%s %s %s", src, g->kind == G_SAME ? "is" : "is not", osrc);
        return buf;
    }
    case G_ABSENT:
        if (val_is_null(v)) return NULL;
        snprintf(buf, cap, "%s is absent", src);
        return buf;
    case G_HOOKS_EMPTY:
        snprintf(buf, cap, "len(%s.%s) == 0", src, g->name->data);
        return buf;
    case G_NN_NO_HOOKS:
        snprintf(buf, cap, "%s has module hooks now (or global module hooks were registered)", src);
        return buf;
    case G_NN_HOOKS:
        snprintf(buf, cap, "the hooks of %s (or the global module hooks) changed", src);
        return buf;
    default: return NULL;
    }
}

void guard_format(Tracer *tr, const Guard *g, char *buf, size_t cap) {
    (void)tr;
    char src[512];
    if (g->source) source_repr_buf(g->source, src, sizeof src);
    else src[0] = 0;
    switch (g->kind) {
    case G_TYPE: snprintf(buf, cap, "TYPE_MATCH: type(%s) is %s", src, ((TypeObj *)g->expected.as.o)->name->data); break;
    case G_ID: {
        TypeObj *t = vm_type_of(tr->vm, g->expected);
        snprintf(buf, cap, "ID_MATCH: %s is <%s object>", src, t->name->data);
        break;
    }
    case G_EQUALS: {
        Value r = vm_repr(tr->vm, g->expected);
        snprintf(buf, cap, "EQUALS_MATCH: %s == %s", src, val_is_null(r) ? "?" : AS_STR(r)->data);
        if (val_is_null(r)) vm_clear_exc(tr->vm);
        break;
    }
    case G_TENSOR: {
        char sz[256] = "", st[256] = "";
        size_t a = 0, b = 0;
        for (int i = 0; i < g->meta.ndim; i++) {
            a += (size_t)snprintf(sz + a, sizeof sz - a, "%s%lld", i ? ", " : "", (long long)g->meta.shape[i]);
            b += (size_t)snprintf(st + b, sizeof st - b, "%s%lld", i ? ", " : "", (long long)g->meta.strides[i]);
        }
        static const char *const dn[] = {"torch.float32", "torch.int64", "torch.bool"};
        snprintf(buf, cap, "TENSOR_MATCH: check_tensor(%s, %s, %s, requires_grad=%s, size=[%s], stride=[%s])", src,
                 g->is_param ? "Parameter" : "Tensor", (unsigned)g->meta.dtype < 3 ? dn[g->meta.dtype] : "?",
                 g->requires_grad ? "True" : "False", sz, st);
        break;
    }
    case G_LEN: snprintf(buf, cap, "LENGTH_CHECK: len(%s) == %lld", src, (long long)g->n); break;
    case G_STORAGE_OFFSET: snprintf(buf, cap, "STORAGE_OFFSET: %s.storage_offset() == %lld", src, (long long)g->n); break;
    case G_DICT_KEYS: {
        Value r = vm_repr(tr->vm, g->expected);
        snprintf(buf, cap, "DICT_KEYS: list(%s.keys()) == %s", src, val_is_null(r) ? "?" : AS_STR(r)->data);
        if (val_is_null(r)) vm_clear_exc(tr->vm);
        break;
    }
    case G_HASATTR:
        snprintf(buf, cap, "%s: hasattr(%s, '%s')", g->flag ? "HASATTR" : "NO_HASATTR", src, g->name->data);
        break;
    case G_GRAD_MODE: snprintf(buf, cap, "GRAD_MODE: torch.is_grad_enabled() == %s", g->flag ? "True" : "False"); break;
    case G_SAVED_HOOKS: snprintf(buf, cap, "SAVED_TENSOR_HOOKS: active == %s", g->flag ? "True" : "False"); break;
    case G_AUTOCAST:
        if (g->expected.as.i < 0) snprintf(buf, cap, "AUTOCAST: torch.is_autocast_cpu_enabled() == False");
        else
            snprintf(buf, cap, "AUTOCAST: torch.is_autocast_cpu_enabled() and torch.get_autocast_cpu_dtype() == %s",
                     tensor_dtype_name((TensorDtype)g->expected.as.i));
        break;
    case G_DEFAULT_DTYPE:
        snprintf(buf, cap, "DEFAULT_DTYPE: torch.get_default_dtype() == %s",
                 tensor_dtype_name((TensorDtype)g->expected.as.i));
        break;
    case G_SAME: case G_NOT_SAME: {
        char o[512];
        source_repr_buf(g->other, o, sizeof o);
        snprintf(buf, cap, "%s: %s %s %s", g->kind == G_SAME ? "TENSOR_ALIASING" : "NO_TENSOR_ALIASING", src,
                 g->kind == G_SAME ? "is" : "is not", o);
        break;
    }
    case G_HOOKS_EMPTY: snprintf(buf, cap, "NO_HOOKS: len(%s.%s) == 0", src, g->name->data); break;
    case G_ABSENT:
        if (g->source->kind == SRC_ITEM && g->source->key.tag == VAL_OBJ) {
            char d[512];
            source_repr_buf(g->source->base, d, sizeof d);
            snprintf(buf, cap, "DICT_CONTAINS: not ___dict_contains('%s', %s)", AS_STR(g->source->key)->data, d);
        } else {
            snprintf(buf, cap, "ABSENT: %s", src);
        }
        break;
    case G_NN_NO_HOOKS: snprintf(buf, cap, "NN_MODULE_NO_HOOKS: %s and the global module hook dicts are empty", src); break;
    case G_NN_HOOKS: snprintf(buf, cap, "NN_MODULE_HOOKS: %s and the global module hook dicts hold the traced hooks", src); break;
    case G_BACKEND: snprintf(buf, cap, "BACKEND_MATCH: ___check_current_backend(%s)", g->backend ? g->backend->name : "?"); break;
    default: snprintf(buf, cap, "?"); break;
    }
}

/* CPU autocast as one number: its dtype when on, -1 when off */
int tracer_autocast_state(VM *vm) {
    TorchState *ts = torch_state(vm);
    return ts && ts->autocast_cpu ? (int)ts->autocast_cpu_dtype : -1;
}
