/* src/tracer/source.c — sources: where a value the tracer saw came from (L['x'], G['stats'],
 * L['self'].lin.weight, L['xs'][0]).  Residual code reloads values from them and guards read
 * them again on every call, statically: no script code runs and nothing is allocated. */
#include <stdio.h>
#include <string.h>

#include "src/torch/module.h"
#include "src/tracer/tracer.h"
#include "vm/mod_functools.h"
#include "vm/dict.h"
#include "vm/str.h"

static Source *src_new(Tracer *tr, SourceKind kind) {
    Source *s = trace_arena_alloc(&tr->arena, sizeof *s);
    s->kind = kind;
    s->key = val_null();
    return s;
}

Source *source_local(Tracer *tr, int slot, StrObj *name) {
    Source *s = src_new(tr, SRC_LOCAL);
    s->index = slot;
    s->name = name;
    return s;
}

Source *source_global(Tracer *tr, StrObj *name) {
    Source *s = src_new(tr, SRC_GLOBAL);
    s->name = name;
    return s;
}

Source *source_attr(Tracer *tr, Source *base, StrObj *name) {
    Source *s = src_new(tr, SRC_ATTR);
    s->base = base;
    s->name = name;
    return s;
}

Source *source_item(Tracer *tr, Source *base, Value key) {
    Source *s = src_new(tr, SRC_ITEM);
    s->base = base;
    s->key = key;
    return s;
}

Source *source_closure(Tracer *tr, int index, StrObj *name) {
    Source *s = src_new(tr, SRC_CLOSURE);
    s->index = index;
    s->name = name;
    return s;
}

void source_repr_buf(const Source *s, char *buf, size_t cap) {
    char base[512];
    switch (s->kind) {
    case SRC_LOCAL: case SRC_CLOSURE: snprintf(buf, cap, "L['%s']", s->name->data); return;
    case SRC_GLOBAL: snprintf(buf, cap, "G['%s']", s->name->data); return;
    case SRC_OBJECT: snprintf(buf, cap, "%s", s->name ? s->name->data : "___object"); return;
    case SRC_ATTR:
        source_repr_buf(s->base, base, sizeof base);
        snprintf(buf, cap, "%s.%s", base, s->name->data);
        return;
    case SRC_ITEM:
        source_repr_buf(s->base, base, sizeof base);
        if (s->key.tag == VAL_INT) snprintf(buf, cap, "%s[%lld]", base, (long long)s->key.as.i);
        else if (s->key.tag == VAL_OBJ) snprintf(buf, cap, "%s['%s']", base, ((StrObj *)s->key.as.o)->data);
        else snprintf(buf, cap, "%s[?]", base);
        return;
    }
}

Source *source_object(Tracer *tr, Value obj, const char *label) {
    Source *s = trace_arena_alloc(&tr->arena, sizeof *s);
    s->kind = SRC_OBJECT;
    s->key = obj;
    Value name = vm_intern(tr->vm, label);
    s->name = val_is_null(name) ? NULL : AS_STR(name);
    if (val_is_null(name)) vm_clear_exc(tr->vm);
    trace_keep(tr, obj);
    if (s->name) trace_keep(tr, name);
    return s;
}

const char *source_repr(Tracer *tr, Source *s) {
    if (!s->repr) {
        char buf[1024];
        source_repr_buf(s, buf, sizeof buf);
        s->repr = trace_arena_strdup(&tr->arena, buf);
    }
    return s->repr;
}

/* dynamo's placeholder naming: L['self'].lin.weight -> L_self_lin_weight_ */
void source_placeholder_name(Source *s, char *buf, size_t cap) {
    char r[1024];
    source_repr_buf(s, r, sizeof r);
    size_t j = 0;
    bool last_us = false;
    for (const char *p = r; *p && j + 2 < cap; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (ok) {
            buf[j++] = c;
            last_us = false;
        } else if (!last_us) {
            buf[j++] = '_';
            last_us = true;
        }
    }
    if (!last_us && j + 1 < cap) buf[j++] = '_';
    buf[j] = 0;
}

bool source_equal(const Source *a, const Source *b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind) return false;
    switch (a->kind) {
    case SRC_LOCAL: case SRC_CLOSURE: return a->index == b->index;
    case SRC_GLOBAL: return str_eq(a->name, b->name);
    case SRC_OBJECT: return val_identical(a->key, b->key);
    case SRC_ATTR: return str_eq(a->name, b->name) && source_equal(a->base, b->base);
    case SRC_ITEM:
        if (a->key.tag != b->key.tag) return false;
        if (a->key.tag == VAL_INT && a->key.as.i != b->key.as.i) return false;
        if (a->key.tag == VAL_OBJ && !str_eq((StrObj *)a->key.as.o, (StrObj *)b->key.as.o)) return false;
        return source_equal(a->base, b->base);
    }
    return false;
}

/* ---- static reads --------------------------------------------------------------------------- */

/* nn.Module state lives in C fields behind getset descriptors: read them directly. */
static bool module_field(VM *vm, NnModuleObj *m, StrObj *name, Value *out) {
    DictObj *d = NULL;
    bool found = false;
    if (strcmp(name->data, "_parameters") == 0) d = m->parameters, found = true;
    else if (strcmp(name->data, "_buffers") == 0) d = m->buffers, found = true;
    else if (strcmp(name->data, "_modules") == 0) d = m->modules, found = true;
    else if (strcmp(name->data, "training") == 0) {
        *out = val_bool(m->training);
        return true;
    } else {
        static const char *const hooks[] = {
#define X(e, s) s,
            NN_HOOK_DICTS(X)
#undef X
        };
        for (int i = 0; i < NN_HOOKS_COUNT; i++)
            if (strcmp(name->data, hooks[i]) == 0) {
                d = m->hooks[i];
                found = true;
            }
    }
    (void)vm;
    if (found) *out = d ? val_obj(d) : val_null();
    return found;
}

Value trace_static_getattr(VM *vm, Value obj, StrObj *name) {
    TypeObj *t = vm_type_of(vm, obj);
    /* the two descriptors closure sources go through */
    if (t == vm->t_function && strcmp(name->data, "__closure__") == 0) {
        TupleObj *c = ((FunctionObj *)obj.as.o)->closure;
        return c ? val_obj(c) : val_none();
    }
    if (t == vm->t_cell && strcmp(name->data, "cell_contents") == 0) return ((CellObj *)obj.as.o)->v;
    if (t == vm->t_method && strcmp(name->data, "__self__") == 0) return ((BoundMethodObj *)obj.as.o)->self;
    if (t == vm->t_method && strcmp(name->data, "__func__") == 0) return ((BoundMethodObj *)obj.as.o)->func;
    if (t->layout == OBJ_LAYOUT_MODULE) return dict_get_str(((ModuleObj *)obj.as.o)->dict, name);
    Value pfn;
    TupleObj *pargs;
    DictObj *pkw;
    if (functools_partial_parts(obj, &pfn, &pargs, &pkw)) {
        /* a partial's read-only parts (partial.c reads them through these sources) */
        if (strcmp(name->data, "func") == 0) return pfn;
        if (strcmp(name->data, "args") == 0) return val_obj(pargs);
        if (strcmp(name->data, "keywords") == 0) return val_obj(pkw);
    }
    if (t->layout == OBJ_LAYOUT_TYPE) {
        TypeObj *ty = (TypeObj *)obj.as.o;
        return type_lookup(vm, ty, name);
    }
    Value descr = type_lookup(vm, t, name);
    bool is_module = nn_state(vm) && nn_is_module(vm, obj);
    if (is_module) {
        Value f;
        if (module_field(vm, (NnModuleObj *)obj.as.o, name, &f)) return f;
    }
    if (!val_is_null(descr) && vm_is_data_descriptor(vm, descr)) {
        /* tensor.grad is the one data descriptor guards need to read */
        TorchState *ts = torch_state(vm);
        if (ts && vm_isinstance_type(vm, obj, ts->t_tensor) && strcmp(name->data, "grad") == 0 &&
            descr.tag == VAL_OBJ && descr.as.o->type == vm->t_getset) {
            GetSetObj *g = (GetSetObj *)descr.as.o;
            Value r = g->get(vm, obj, g->closure);
            if (val_is_null(r)) vm_clear_exc(vm);
            return r;
        }
        return val_null();
    }
    if (obj.tag == VAL_OBJ && t->dict_offset) {
        DictObj *d = *obj_dict_slot(obj.as.o);
        if (d) {
            Value v = dict_get_str(d, name);
            if (!val_is_null(v)) return v;
        }
        if (is_module) {
            NnModuleObj *m = (NnModuleObj *)obj.as.o;
            DictObj *ds[3] = {m->parameters, m->buffers, m->modules};
            for (int i = 0; i < 3; i++) {
                Value v = ds[i] ? dict_get_str(ds[i], name) : val_null();
                if (!val_is_null(v)) return v;
            }
        }
    }
    return descr;
}

Value source_resolve_static(VM *vm, Frame *f, const Source *s) {
    switch (s->kind) {
    case SRC_LOCAL:
        if (s->index < 0 || s->index >= f->code->nlocalsplus) return val_null();
        return f->localsplus[s->index];
    case SRC_GLOBAL: {
        Value v = dict_get_str(f->globals, s->name);
        if (val_is_null(v) && f->builtins) v = dict_get_str(f->builtins, s->name);
        return v;
    }
    case SRC_OBJECT: return s->key;
    case SRC_CLOSURE: {
        if (!f->func) return val_null();
        FunctionObj *fn = (FunctionObj *)f->func;
        if (!fn->closure || s->index >= fn->closure->len) return val_null();
        Value c = fn->closure->items[s->index];
        return c.tag == VAL_OBJ && c.as.o->type == vm->t_cell ? ((CellObj *)c.as.o)->v : val_null();
    }
    case SRC_ATTR: {
        Value base = source_resolve_static(vm, f, s->base);
        if (val_is_null(base)) return base;
        return trace_static_getattr(vm, base, s->name);
    }
    case SRC_ITEM: {
        Value base = source_resolve_static(vm, f, s->base);
        if (base.tag != VAL_OBJ) return val_null();
        TypeObj *t = base.as.o->type;
        if (s->key.tag == VAL_INT) {
            int64_t i = s->key.as.i;
            if (t->layout == OBJ_LAYOUT_LIST) {
                ListObj *l = (ListObj *)base.as.o;
                return i >= 0 && i < l->len ? l->items[i] : val_null();
            }
            if (t->layout == OBJ_LAYOUT_TUPLE) {
                TupleObj *tu = (TupleObj *)base.as.o;
                return i >= 0 && i < tu->len ? tu->items[i] : val_null();
            }
        }
        if (t->layout == OBJ_LAYOUT_DICT) {
            DictObj *d = (DictObj *)base.as.o;
            if (val_is_str(vm, s->key)) return dict_get_str(d, AS_STR(s->key));
            Value out;
            int r = dict_lookup(vm, d, s->key, &out);
            if (r < 0) vm_clear_exc(vm);
            return r == 1 ? out : val_null();
        }
        return val_null();
    }
    }
    return val_null();
}
