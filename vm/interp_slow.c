/* vm/interp_slow.c — the interpreter's slow paths: the work of instructions that is too large or
 * too rare to sit in the dispatch loop (vm/interp.c and its vm/interp_*.inc handlers): the
 * unbound-variable and NameError messages, LOAD_GLOBAL's cache refill, LOAD_NAME's lookup,
 * unpacking, BUILD_STRING, FORMAT_VALUE, except-clause matching, raise, the with statement's
 * lookups and f(**mapping).  Declared in vm/interp.h. */
#include "vm/interp.h"

#include <string.h>

#include "vm/call.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/iter.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

Value interp_unbound_local(VM *vm, Frame *f, uint32_t i) {
    return vm_raise(vm, vm->e_UnboundLocalError,
                    "cannot access local variable '%s' where it is not associated with a value",
                    AS_STR(f->code->varnames->items[i])->data);
}

StrObj *interp_cell_name(Frame *f, uint32_t i) {
    CodeObj *co = f->code;
    int64_t nc = co->cellvars->len;
    return (int64_t)i < nc ? AS_STR(co->cellvars->items[i]) : AS_STR(co->freevars->items[i - nc]);
}

Value interp_unbound_deref(VM *vm, Frame *f, uint32_t i) {
    if ((int64_t)i < f->code->cellvars->len)
        return vm_raise(vm, vm->e_UnboundLocalError,
                        "cannot access local variable '%s' where it is not associated with a value",
                        interp_cell_name(f, i)->data);
    return vm_raise(vm, vm->e_NameError,
                    "cannot access free variable '%s' where it is not associated with a value in enclosing scope",
                    interp_cell_name(f, i)->data);
}

Value interp_name_error(VM *vm, StrObj *name) {
    return vm_raise(vm, vm->e_NameError, "name '%s' is not defined", name->data);
}

/* LOAD_GLOBAL with its inline cache: (globals version, builtins version) -> value. */
Value interp_load_global(VM *vm, Frame *f, uint32_t oparg, uint16_t cache) {
    StrObj *name = AS_STR(f->code->names->items[oparg >> 1]);
    InlineCache *c = &f->code->caches[cache];
    /* dict versions are unique across all dicts, so the pair identifies both dicts' state */
    if (cache && c->key1 == f->globals->version && c->key2 == f->builtins->version &&
        !val_is_null(c->value))
        return c->value;
    Value v = dict_get_str(f->globals, name);
    bool in_globals = !val_is_null(v);
    if (!in_globals) v = dict_get_str(f->builtins, name);
    if (val_is_null(v)) return interp_name_error(vm, name);
    if (cache) {
        c->key1 = f->globals->version;
        c->key2 = f->builtins->version;
        code_cache_set_value(f->code, c, v);
        c->hint = in_globals;   /* LOAD_GLOBAL_MODULE needs only the globals' version */
    }
    return v;
}

Value interp_load_name(VM *vm, Frame *f, StrObj *name) {
    Value v = val_null();
    if (f->locals_dict) {
        if (f->locals_dict->hdr.type == vm->t_dict) {
            v = dict_get_str(f->locals_dict, name);
        } else {
            v = vm_getitem(vm, val_obj(f->locals_dict), val_obj(name));
            if (val_is_null(v)) {
                if (!vm_exc_matches(vm, vm->e_KeyError)) return v;
                vm_clear_exc(vm);
            }
        }
        if (!val_is_null(v)) return v;
    }
    v = dict_get_str(f->globals, name);
    if (val_is_null(v)) v = dict_get_str(f->builtins, name);
    if (val_is_null(v)) return interp_name_error(vm, name);
    return v;
}

int interp_unpack_sequence(VM *vm, Value seq, int64_t n, Value *out) {
    int64_t len;
    Value *items = NULL;
    if (val_is_type(vm, seq, vm->t_tuple) || val_is_type(vm, seq, vm->t_list)) {
        items = vm_sequence_items(vm, seq, &len, NULL);
        if (len != n) {
            if (len < n)
                vm_raise(vm, vm->e_ValueError, "not enough values to unpack (expected %lld, got %lld)",
                         (long long)n, (long long)len);
            else
                vm_raise(vm, vm->e_ValueError, "too many values to unpack (expected %lld)", (long long)n);
            return -1;
        }
        for (int64_t i = 0; i < n; i++) out[n - 1 - i] = items[i];
        return 0;
    }
    Value it = vm_iter(vm, seq);
    if (val_is_null(it)) {
        if (vm_exc_matches(vm, vm->e_TypeError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_TypeError, "cannot unpack non-iterable %s object", vm_type_name(vm, seq));
        }
        return -1;
    }
    vm_push_root(vm, it);
    ListObj *tmp = list_new(vm, n);
    if (!tmp) {
        vm_pop_root(vm);
        return -1;
    }
    vm_push_root(vm, val_obj(tmp));
    int rc = 0;
    for (int64_t i = 0; i < n; i++) {
        Value x = vm_next(vm, it);
        if (val_is_null(x)) {
            if (val_is_null(vm->exc))
                vm_raise(vm, vm->e_ValueError, "not enough values to unpack (expected %lld, got %lld)",
                         (long long)n, (long long)i);
            rc = -1;
            break;
        }
        tmp->items[tmp->len++] = x;
    }
    if (rc == 0) {
        Value extra = vm_next(vm, it);
        if (!val_is_null(extra)) {
            vm_raise(vm, vm->e_ValueError, "too many values to unpack (expected %lld)", (long long)n);
            rc = -1;
        } else if (!val_is_null(vm->exc)) {
            rc = -1;
        }
    }
    if (rc == 0)
        for (int64_t i = 0; i < n; i++) out[n - 1 - i] = tmp->items[i];
    vm_pop_roots(vm, 2);
    return rc;
}

/* UNPACK_EX: `before` values, a list of the rest, `after` values (pushed in reverse). */
int interp_unpack_ex(VM *vm, Value seq, int before, int after, Value *out) {
    ListObj *l = vm_list_from_iterable(vm, seq);
    if (!l) {
        if (vm_exc_matches(vm, vm->e_TypeError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_TypeError, "cannot unpack non-iterable %s object", vm_type_name(vm, seq));
        }
        return -1;
    }
    if (l->len < before + after) {
        vm_raise(vm, vm->e_ValueError, "not enough values to unpack (expected at least %d, got %lld)",
                 before + after, (long long)l->len);
        return -1;
    }
    vm_push_root(vm, val_obj(l));
    int64_t nmid = l->len - before - after;
    ListObj *mid = list_from_array(vm, l->items + before, nmid);
    vm_pop_root(vm);
    if (!mid) return -1;
    int total = before + 1 + after;
    int k = total - 1;
    for (int i = 0; i < before; i++) out[k--] = l->items[i];
    out[k--] = val_obj(mid);
    for (int i = 0; i < after; i++) out[k--] = l->items[before + nmid + i];
    return 0;
}

Value interp_build_string(VM *vm, Value *items, int n) {
    int64_t total = 0;
    for (int i = 0; i < n; i++) total += AS_STR(items[i])->len;
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < n; i++) sb_add_str(&b, AS_STR(items[i]));
    (void)total;
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

Value interp_format_value(VM *vm, Value v, int flags, Value spec) {
    Value conv = v;
    switch (flags & 3) {
    case 1: conv = vm_str(vm, v); break;
    case 2: conv = vm_repr(vm, v); break;
    case 3: conv = vm_ascii(vm, v); break;
    default: break;
    }
    if (val_is_null(conv)) return conv;
    if (val_is_null(spec) && val_is_type(vm, conv, vm->t_str)) return conv;
    vm_push_root(vm, conv);
    Value r = vm_format(vm, conv, spec);
    vm_pop_root(vm);
    return r;
}

int interp_check_exc_class(VM *vm, Value t) {
    if (val_is_type(vm, t, vm->t_tuple)) {
        TupleObj *tu = AS_TUPLE(t);
        for (int64_t i = 0; i < tu->len; i++)
            if (interp_check_exc_class(vm, tu->items[i]) < 0) return -1;
        return 0;
    }
    if (val_is_obj(t) && vm_isinstance_type(vm, t, vm->t_type) && (AS_TYPE(t)->flags & TYPEF_EXCEPTION))
        return 0;
    vm_raise(vm, vm->e_TypeError, "catching classes that do not inherit from BaseException is not allowed");
    return -1;
}

int interp_exc_class_matches(VM *vm, Value exc, Value t) {
    if (val_is_type(vm, t, vm->t_tuple)) {
        TupleObj *tu = AS_TUPLE(t);
        for (int64_t i = 0; i < tu->len; i++)
            if (interp_exc_class_matches(vm, exc, tu->items[i])) return 1;
        return 0;
    }
    return vm_isinstance_type(vm, exc, AS_TYPE(t));
}

int interp_do_raise(VM *vm, Value exc, Value cause) {
    if (val_is_null(exc)) {
        if (!val_is_obj(vm->handled)) {
            vm_raise(vm, vm->e_RuntimeError, "No active exception to reraise");
            return -1;
        }
        vm->exc = vm->handled;
        return 1;   /* re-raise: no new traceback entry */
    }
    if (val_is_null(vm_raise_value(vm, exc)) && val_is_null(vm->exc)) return -1;
    Value e = vm->exc;
    if (!val_is_null(cause) && val_is_obj(e) && (e.as.o->type->flags & TYPEF_EXCEPTION)) {
        ExceptionObj *eo = (ExceptionObj *)e.as.o;
        if (val_is_none(cause)) {
            eo->cause = val_none();
        } else if (val_is_obj(cause) && vm_isinstance_type(vm, cause, vm->t_type) &&
                   (AS_TYPE(cause)->flags & TYPEF_EXCEPTION)) {
            vm->exc = val_null();
            vm_push_root(vm, e);
            Value c = type_call(vm, AS_TYPE(cause), 0, NULL, NULL);
            vm_pop_root(vm);
            if (val_is_null(c)) return -1;
            vm->exc = e;
            eo->cause = c;
        } else if (val_is_obj(cause) && (cause.as.o->type->flags & TYPEF_EXCEPTION)) {
            eo->cause = cause;
        } else {
            vm_raise(vm, vm->e_TypeError, "exception causes must derive from BaseException");
            return -1;
        }
        eo->suppress_context = true;
    }
    return 0;
}

Value interp_with_lookup(VM *vm, Value mgr, SpecialMethod sp) {
    Value m = type_special(vm, vm_type_of(vm, mgr), sp);
    if (val_is_null(m)) {
        TypeObj *t = vm_type_of(vm, mgr);
        bool has_enter = !val_is_null(type_special(vm, t, SP_ENTER));
        return vm_raise(vm, vm->e_TypeError,
                        sp == SP_ENTER || !has_enter
                            ? "'%s' object does not support the context manager protocol"
                            : "'%s' object does not support the context manager protocol (missed __exit__ method)",
                        t->name->data);
    }
    return vm_bind_descriptor(vm, m, mgr, vm_type_of(vm, mgr));
}

/* DICT_MERGE: f(**src) adds src's items to the call's keyword dict; src may be any mapping
 * (keys() and __getitem__).  Errors name the callable, as CPython's format_kwargs_error. */
int interp_dict_merge_kwargs(VM *vm, DictObj *dst, Value src, Value fn) {
    if (!vm_isinstance_type(vm, src, vm->t_dict) &&
        val_is_null(type_lookup(vm, vm_type_of(vm, src), vm_intern_str(vm, "keys")))) {
        StrObj *fs = call_function_str(vm, fn);
        vm_raise(vm, vm->e_TypeError, "%s argument after ** must be a mapping, not %s", fs->data,
                 vm_type_name(vm, src));
        return -1;
    }
    Value keys;
    if (val_is_type(vm, src, vm->t_dict)) {
        keys = src;
    } else {
        keys = vm_call_method(vm, src, "keys", 0, NULL);
        if (val_is_null(keys)) return -1;
    }
    vm_push_root(vm, keys);
    ListObj *kl = vm_list_from_iterable(vm, keys);
    vm_pop_root(vm);
    if (!kl) return -1;
    vm_push_root(vm, val_obj(kl));
    int rc = 0;
    for (int64_t i = 0; i < kl->len && rc == 0; i++) {
        Value k = kl->items[i], old;
        int r = dict_lookup(vm, dst, k, &old);
        if (r < 0) { rc = -1; break; }
        if (r) {
            StrObj *fs = call_function_str(vm, fn);
            if (val_is_str(vm, k))
                vm_raise(vm, vm->e_TypeError, "%s got multiple values for keyword argument '%s'", fs->data,
                         AS_STR(k)->data);
            else
                vm_raise(vm, vm->e_TypeError, "%s keywords must be strings", fs->data);
            rc = -1;
            break;
        }
        Value v = vm_getitem(vm, src, k);
        if (val_is_null(v)) { rc = -1; break; }
        vm_push_root(vm, v);
        rc = dict_set(vm, dst, k, v);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return rc;
}
