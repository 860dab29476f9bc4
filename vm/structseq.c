/* vm/structseq.c — struct sequence types (see structseq.h): construction from C, the
 * script-visible constructor type(sequence, dict=None) with CPython's length rules, field
 * access by name, repr "module.name(field=value, ...)" and pickling through __reduce__.
 *
 * Layout: a TupleObj whose len is n_in_sequence; the fields past the sequence live in a small
 * dict hung on the tuple's (otherwise unused) attribute-dict slot, which tuple_trace marks.
 * The type has no __dict__ for instances (dict_offset 0), as in CPython. */
#include "vm/structseq.h"

#include <stdlib.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"


#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static const StructSeqDesc *info_of(TypeObj *t) {
    for (; t; t = t->base)
        if (t->native_data && t->layout == OBJ_LAYOUT_TUPLE) return t->native_data;
    return NULL;
}

static Value field_get(VM *vm, Value self, void *closure) {
    TupleObj *tu = AS_TUPLE(self);
    const StructSeqDesc *si = info_of(tu->hdr.type);
    intptr_t i = (intptr_t)closure;
    if (i < tu->len) return tu->items[i];
    Value v = tu->dict ? dict_get_c(vm, tu->dict, si->fields[i]) : val_null();
    return val_is_null(v) ? val_none() : v;
}

TupleObj *structseq_new(VM *vm, TypeObj *t, const Value *values) {
    const StructSeqDesc *si = info_of(t);
    TupleObj *tu = tuple_alloc(vm, t, si->n_in_sequence);
    if (!tu) return NULL;
    memcpy(tu->items, values, sizeof(Value) * (size_t)si->n_in_sequence);
    if (si->nfields > si->n_in_sequence) {
        vm_push_root(vm, val_obj(tu));
        DictObj *d = dict_new(vm);
        if (!d) goto fail;
        tu->dict = d;
        for (int i = si->n_in_sequence; i < si->nfields; i++)
            if (si->fields[i] && dict_set_c(vm, d, si->fields[i], values[i]) < 0) goto fail;
        vm_pop_root(vm);
    }
    return tu;
fail:
    vm_pop_root(vm);
    return NULL;
}

/* type(sequence, dict=None): at least n_in_sequence and at most n_fields items; the fields
 * past the sequence come from the items, else from dict, else None. */
static Value ss_new(ARGS) {
    static const char *const names[] = {"cls", "sequence", "dict"};
    Value a[3];
    TypeObj *t = AS_TYPE(argv[0]);
    const StructSeqDesc *si = info_of(t);
    if (native_parse_args(vm, si->name, argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    if (t->alloc == NULL || (t->flags & TYPEF_ABSTRACT_NEW))
        return vm_raise(vm, vm->e_TypeError, "cannot create '%s' instances", si->name);
    ListObj *items = vm_list_from_iterable(vm, a[1]);
    if (!items) {
        if (vm_exc_matches(vm, vm->e_TypeError)) {
            vm_clear_exc(vm);
            return vm_raise(vm, vm->e_TypeError, "constructor requires a sequence");
        }
        return val_null();
    }
    vm_push_root(vm, val_obj(items));
    int64_t n = items->len;
    Value r = val_null();
    if (!val_is_null(a[2]) && !val_is_none(a[2]) && !vm_isinstance_type(vm, a[2], vm->t_dict)) {
        vm_raise(vm, vm->e_TypeError, "%s() takes a dict as second arg, if any", si->name);
        goto done;
    }
    if (n < si->n_in_sequence) {
        if (si->n_in_sequence == si->nfields)
            vm_raise(vm, vm->e_TypeError, "%s() takes a %d-sequence (%lld-sequence given)", si->name,
                     si->n_in_sequence, (long long)n);
        else
            vm_raise(vm, vm->e_TypeError, "%s() takes an at least %d-sequence (%lld-sequence given)",
                     si->name, si->n_in_sequence, (long long)n);
        goto done;
    }
    if (n > si->nfields) {
        if (si->n_in_sequence == si->nfields)
            vm_raise(vm, vm->e_TypeError, "%s() takes a %d-sequence (%lld-sequence given)", si->name,
                     si->n_in_sequence, (long long)n);
        else
            vm_raise(vm, vm->e_TypeError, "%s() takes an at most %d-sequence (%lld-sequence given)",
                     si->name, si->nfields, (long long)n);
        goto done;
    }
    Value vals[64];
    EM_ASSERT(si->nfields <= 64, "struct sequence too wide");
    for (int i = 0; i < si->nfields; i++) {
        if (i < n) {
            vals[i] = items->items[i];
        } else {
            Value v = val_null();
            if (!val_is_null(a[2]) && !val_is_none(a[2]) && si->fields[i])
                v = dict_get_c(vm, AS_DICT(a[2]), si->fields[i]);
            vals[i] = val_is_null(v) ? val_none() : v;
        }
    }
    TupleObj *tu = structseq_new(vm, t, vals);
    if (tu) r = val_obj(tu);
done:
    vm_pop_root(vm);
    return r;
}

static Value ss_repr(ARGS) {
    TupleObj *tu = AS_TUPLE(argv[0]);
    const StructSeqDesc *si = info_of(tu->hdr.type);
    int rc = repr_enter(vm, &tu->hdr);
    if (rc != 0) return rc < 0 ? val_null() : val_obj(str_printf(vm, "%s(...)", si->name));
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "%s(", si->name);
    /* CPython names item i after the i-th *named* field, so stat_result's unnamed integer
     * times print as st_atime=..., st_mtime=..., st_ctime=... */
    int named = 0;
    for (int64_t i = 0; i < tu->len; i++) {
        while (named < si->nfields && !si->fields[named]) named++;
        const char *fname = named < si->nfields ? si->fields[named++] : "?";
        Value r = vm_repr(vm, tu->items[i]);
        if (val_is_null(r)) {
            sb_free(&b);
            repr_leave(vm, &tu->hdr);
            return r;
        }
        sb_printf(&b, "%s%s=", i ? ", " : "", fname);
        sb_add_str(&b, AS_STR(r));
    }
    sb_addc(&b, ')');
    repr_leave(vm, &tu->hdr);
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

/* (type, (visible items,), {hidden fields}) */
static Value ss_reduce(ARGS) {
    TupleObj *tu = AS_TUPLE(argv[0]);
    const StructSeqDesc *si = info_of(tu->hdr.type);
    TupleObj *items = tuple_from_array(vm, tu->items, tu->len);
    if (!items) return val_null();
    vm_push_root(vm, val_obj(items));
    DictObj *d = dict_new(vm);
    Value r = val_null();
    if (!d) goto done;
    vm_push_root(vm, val_obj(d));
    for (int i = si->n_in_sequence; i < si->nfields; i++)
        if (si->fields[i] && dict_set_c(vm, d, si->fields[i], field_get(vm, argv[0], (void *)(intptr_t)i)) < 0)
            goto done2;
    {
        TupleObj *args = tuple_pack(vm, 2, val_obj(items), val_obj(d));
        if (!args) goto done2;
        vm_push_root(vm, val_obj(args));
        TupleObj *res = tuple_pack(vm, 2, val_obj(tu->hdr.type), val_obj(args));
        vm_pop_root(vm);
        if (res) r = val_obj(res);
    }
done2:
    vm_pop_root(vm);
done:
    vm_pop_root(vm);
    return r;
}

TypeObj *structseq_new_type(VM *vm, const StructSeqDesc *desc) {
    const char *qualified_name = desc->name;
    const char *const *fields = desc->fields;
    int nfields = desc->nfields, n_in_sequence = desc->n_in_sequence;
    const char *dot = strrchr(qualified_name, '.');
    const char *name = dot ? dot + 1 : qualified_name;
    TypeObj *t = type_new_builtin(vm, name, vm->t_tuple, OBJ_LAYOUT_TUPLE, sizeof(TupleObj), 0, tuple_trace,
                                  NULL, 0);
    if (!t) return NULL;
    vm_push_root(vm, val_obj(t));
    t->native_data = (void *)desc;
    static const MethodDef methods[] = {
        {"__new__", ss_new, NATIVEF_STATIC}, {"__repr__", ss_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__reduce__", ss_reduce, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    TypeObj *r = NULL;
    if (type_add_methods(vm, t, methods) < 0) goto done;
    GetSetDef gs[2] = {{0}, {0}};
    int unnamed = 0, named_visible = 0;
    for (int i = 0; i < nfields; i++) {
        if (!fields[i]) {   /* an unnamed field: reachable by index only */
            unnamed++;
            continue;
        }
        if (i < n_in_sequence) named_visible++;
        gs[0] = (GetSetDef){fields[i], field_get, NULL, (void *)(intptr_t)i};
        if (type_add_getsets(vm, t, gs) < 0) goto done;
    }
    if (dot) {
        StrObj *mod = str_new(vm, qualified_name, dot - qualified_name);
        if (!mod) goto done;
        t->module = val_obj(mod);
        if (dict_set_c(vm, t->dict, "__module__", t->module) < 0) goto done;
    }
    TupleObj *match = tuple_new(vm, named_visible);
    if (!match) goto done;
    vm_push_root(vm, val_obj(match));
    for (int i = 0, k = 0; i < n_in_sequence; i++) {
        if (!fields[i]) continue;
        StrObj *s = vm_intern_str(vm, fields[i]);
        if (!s) {
            vm_pop_root(vm);
            goto done;
        }
        match->items[k++] = val_obj(s);
    }
    int rc = dict_set_c(vm, t->dict, "__match_args__", val_obj(match));
    vm_pop_root(vm);
    if (rc < 0 || dict_set_c(vm, t->dict, "n_sequence_fields", val_int(n_in_sequence)) < 0 ||
        dict_set_c(vm, t->dict, "n_fields", val_int(nfields)) < 0 ||
        dict_set_c(vm, t->dict, "n_unnamed_fields", val_int(unnamed)) < 0)
        goto done;
    type_modified(vm, t);
    r = t;
done:
    vm_pop_root(vm);
    return r;
}
