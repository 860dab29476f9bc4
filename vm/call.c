/* vm/call.c — calling: dispatch on the callable's kind, binding arguments to parameters with
 * CPython's error messages, frame setup on the VM value stack, generator creation, and the
 * call helpers used throughout the VM. */
#include <stdlib.h>
#include <string.h>

#include "vm/call.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/gen.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

static Value call_slot(VM *vm, Value c, Value self, TypeObj *t, int argc, Value *argv, TupleObj *kw);

/* ---- argument binding ------------------------------------------------------------------ */

static void missing_args_error(VM *vm, FunctionObj *fn, Value *names, int n, const char *kind) {
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "%s() missing %d required %s argument%s: ", fn->qualname->data, n, kind,
              n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        if (i) sb_adds(&b, n == 2 ? " and " : (i == n - 1 ? ", and " : ", "));
        sb_printf(&b, "'%s'", AS_STR(names[i])->data);
    }
    StrObj *msg = sb_finish(vm, &b);
    if (msg) vm_raise_str(vm, vm->e_TypeError, msg);
}

int call_bind_args(VM *vm, FunctionObj *fn, Value *locals, int argc, Value *argv, TupleObj *kw) {
    CodeObj *co = fn->code;
    int n = co->argcount, nkwonly = co->kwonlyargcount;
    int nkw = kw ? (int)kw->len : 0;
    Value *names = co->varnames->items;
    int slot_varargs = n + nkwonly;
    int slot_varkw = slot_varargs + ((co->flags & CO_VARARGS) ? 1 : 0);
    DictObj *kwdict = NULL;
    if (co->flags & CO_VARKEYWORDS) {
        kwdict = dict_new(vm);
        if (!kwdict) return -1;
        locals[slot_varkw] = val_obj(kwdict);
    }
    int npos = argc < n ? argc : n;
    for (int i = 0; i < npos; i++) locals[i] = argv[i];
    if (co->flags & CO_VARARGS) {
        TupleObj *rest = tuple_from_array(vm, argv + npos, argc > n ? argc - n : 0);
        if (!rest) return -1;
        locals[slot_varargs] = val_obj(rest);
    } else if (argc > n) {
        int ndef = fn->defaults ? (int)fn->defaults->len : 0;
        int given_kwonly = 0;
        for (int k = 0; k < nkw; k++)
            for (int j = n; j < n + nkwonly; j++)
                if (str_eq(AS_STR(kw->items[k]), AS_STR(names[j]))) given_kwonly++;
        char kwpart[96] = "";
        if (given_kwonly)
            snprintf(kwpart, sizeof kwpart, " positional argument%s (and %d keyword-only argument%s)",
                     argc == 1 ? "" : "s", given_kwonly, given_kwonly == 1 ? "" : "s");
        if (ndef)
            vm_raise(vm, vm->e_TypeError, "%s() takes from %d to %d positional arguments but %d %s given%s",
                     fn->qualname->data, n - ndef, n, argc, argc == 1 ? "was" : "were", kwpart);
        else
            vm_raise(vm, vm->e_TypeError, "%s() takes %d positional argument%s but %d%s %s given",
                     fn->qualname->data, n, n == 1 ? "" : "s", argc,
                     given_kwonly ? kwpart : "", (argc == 1 && !given_kwonly) ? "was" : "were");
        return -1;
    }
    for (int k = 0; k < nkw; k++) {
        StrObj *kn = AS_STR(kw->items[k]);
        Value v = argv[argc + k];
        int j = co->posonlyargcount;
        for (; j < n + nkwonly; j++) {
            StrObj *pn = AS_STR(names[j]);
            if (pn == kn || str_eq(pn, kn)) break;
        }
        if (j < n + nkwonly) {
            if (!val_is_null(locals[j])) {
                vm_raise(vm, vm->e_TypeError, "%s() got multiple values for argument '%s'",
                         fn->qualname->data, kn->data);
                return -1;
            }
            locals[j] = v;
            continue;
        }
        if (kwdict) {
            if (dict_set_str(vm, kwdict, kn, v) < 0) return -1;
            continue;
        }
        for (int p = 0; p < co->posonlyargcount; p++)
            if (str_eq(AS_STR(names[p]), kn)) {
                /* CPython's positional_only_passed_as_keyword names all of them */
                StrBuf b = SB_INIT;
                for (int k2 = 0; k2 < nkw; k2++)
                    for (int p2 = 0; p2 < co->posonlyargcount; p2++)
                        if (str_eq(AS_STR(names[p2]), AS_STR(kw->items[k2]))) {
                            if (b.len) sb_adds(&b, ", ");
                            sb_add_str(&b, AS_STR(kw->items[k2]));
                        }
                vm_raise(vm, vm->e_TypeError,
                         "%s() got some positional-only arguments passed as keyword arguments: '%s'",
                         fn->qualname->data, b.data ? b.data : "");
                sb_free(&b);
                return -1;
            }
        vm_raise(vm, vm->e_TypeError, "%s() got an unexpected keyword argument '%s'",
                 fn->qualname->data, kn->data);
        return -1;
    }
    if (argc < n) {
        int ndef = fn->defaults ? (int)fn->defaults->len : 0;
        Value missing[64];
        int nmissing = 0;
        for (int i = argc; i < n; i++) {
            if (!val_is_null(locals[i])) continue;
            int d = i - (n - ndef);
            if (d >= 0) locals[i] = fn->defaults->items[d];
            else if (nmissing < 64) missing[nmissing++] = names[i];
        }
        if (nmissing) {
            missing_args_error(vm, fn, missing, nmissing, "positional");
            return -1;
        }
    }
    if (nkwonly) {
        Value missing[64];
        int nmissing = 0;
        for (int i = n; i < n + nkwonly; i++) {
            if (!val_is_null(locals[i])) continue;
            Value d = fn->kwdefaults ? dict_get_str(fn->kwdefaults, AS_STR(names[i])) : val_null();
            if (!val_is_null(d)) locals[i] = d;
            else if (nmissing < 64) missing[nmissing++] = names[i];
        }
        if (nmissing) {
            missing_args_error(vm, fn, missing, nmissing, "keyword-only");
            return -1;
        }
    }
    return 0;
}

/* ---- frames --------------------------------------------------------------------------- */

Frame *frame_push_slow(VM *vm, CodeObj *co) {
    if (vm->depth >= vm->recursion_limit) {
        vm_raise(vm, vm->e_RecursionError, "maximum recursion depth exceeded");
        return NULL;
    }
    vm_raise(vm, vm->e_RecursionError, "maximum recursion depth exceeded (value stack full)");
    return NULL;
}

/* ---- dispatch ------------------------------------------------------------------------- */

extern Value type_call_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn);

static Value call_function(VM *vm, FunctionObj *fn, int argc, Value *argv, TupleObj *kw) {
    CodeObj *co = fn->code;
    if (co->flags & CO_GENERATOR_KINDS) return gen_new_from_call(vm, fn, argc, argv, kw);
    Frame *f = frame_push(vm, co, (Obj *)fn, fn->globals, NULL);
    if (!f) return val_null();
    /* The frame is not yet linked as vm->frame while its arguments are bound, but its slots are
     * on the value stack above the caller's, so mark them through a temporary link. */
    Frame *saved = vm->frame;
    vm->frame = f;
    f->sp = f->stack;
    int rc = call_bind_args(vm, fn, f->localsplus, argc, argv, kw);
    vm->frame = saved;
    if (rc < 0) {
        frame_pop(vm, f);
        return val_null();
    }
    Value r = vm->eval_frame(vm, f);
    return r;
}

Value vm_call(VM *vm, Value callable, int argc, Value *argv, TupleObj *kw) {
    if (kw && kw->len == 0) kw = NULL;
    if (callable.tag != VAL_OBJ) goto not_callable;
    TypeObj *t = callable.as.o->type;
    if (t == vm->t_function) return call_function(vm, (FunctionObj *)callable.as.o, argc, argv, kw);
    if (t->layout == OBJ_LAYOUT_NATIVE) {
        NativeObj *n = (NativeObj *)callable.as.o;
        if (!val_is_null(n->self)) return call_with_self(vm, callable, n->self, argc, argv, kw);
        if ((n->flags & NATIVEF_METHOD) && n->owner &&
            (argc < 1 || !vm_isinstance_type(vm, argv[0], n->owner))) {
            if (argc < 1)
                return vm_raise(vm, vm->e_TypeError, "unbound method %s.%s() needs an argument",
                                n->owner->name->data, n->name);
            return vm_raise(vm, vm->e_TypeError, "descriptor '%s' for '%s' objects doesn't apply to a '%s' object",
                            n->name, n->owner->name->data, vm_type_name(vm, argv[0]));
        }
        if ((n->flags & ARITY_MASK) && native_check_arity(vm, n, argc, kw) < 0) return val_null();
        if (vm_check_recursion(vm, " while calling a Python object") < 0) return val_null();
        Value r = n->fn(vm, argc, argv, kw, n);
        vm_leave_recursion(vm);
        EM_ASSERT(!val_is_null(r) || !val_is_null(vm->exc), "native function failed without an exception");
        return r;
    }
    if (t == vm->t_method) {
        BoundMethodObj *m = (BoundMethodObj *)callable.as.o;
        return call_with_self(vm, m->func, m->self, argc, argv, kw);
    }
    if (t == vm->t_type) return type_call(vm, (TypeObj *)callable.as.o, argc, argv, kw);
    if (t->layout == OBJ_LAYOUT_TYPE) {
        /* a class whose metaclass defines __call__ (singletons, EnumType's lookups) */
        Value c = type_special(vm, t, SP_CALL);
        if (c.tag == VAL_OBJ && c.as.o->type->layout == OBJ_LAYOUT_NATIVE && ((NativeObj *)c.as.o)->fn == type_call_fn)
            return type_call(vm, (TypeObj *)callable.as.o, argc, argv, kw);
        if (!val_is_null(c)) return call_slot(vm, c, callable, t, argc, argv, kw);
        return type_call(vm, (TypeObj *)callable.as.o, argc, argv, kw);
    }
    {
        Value c = type_special(vm, t, SP_CALL);
        if (!val_is_null(c)) return call_slot(vm, c, callable, t, argc, argv, kw);
    }
not_callable:
    return vm_raise(vm, vm->e_TypeError, "'%s' object is not callable", vm_type_name(vm, callable));
}

/* type(x).__call__(x, ...): functions and native methods take x directly; anything else binds as a
 * descriptor would (a class stored as __call__, like typing's `__call__ = dict`, is called as is). */
static Value call_slot(VM *vm, Value c, Value self, TypeObj *t, int argc, Value *argv, TupleObj *kw) {
    if (c.tag == VAL_OBJ && (c.as.o->type == vm->t_function ||
                             (c.as.o->type->layout == OBJ_LAYOUT_NATIVE && (((NativeObj *)c.as.o)->flags & NATIVEF_METHOD))))
        return call_with_self(vm, c, self, argc, argv, kw);
    Value b = vm_bind_descriptor(vm, c, self, t);
    if (val_is_null(b)) return b;
    vm_push_root(vm, b);
    Value r = vm_call(vm, b, argc, argv, kw);
    vm_pop_root(vm);
    return r;
}

Value call_with_self(VM *vm, Value f, Value self, int argc, Value *argv, TupleObj *kw) {
    int total = argc + (kw ? (int)kw->len : 0);
    Value small[12];
    Value *buf = total + 1 <= 12 ? small : malloc(sizeof(Value) * (size_t)(total + 1));
    if (!buf) return vm_no_memory(vm);
    buf[0] = self;
    if (total) memcpy(buf + 1, argv, sizeof(Value) * (size_t)total);
    Value r = vm_call(vm, f, argc + 1, buf, kw);
    if (buf != small) free(buf);
    return r;
}

Value vm_call0(VM *vm, Value c) { return vm_call(vm, c, 0, NULL, NULL); }
Value vm_call1(VM *vm, Value c, Value a) { return vm_call(vm, c, 1, &a, NULL); }
Value vm_call2(VM *vm, Value c, Value a, Value b) {
    Value args[2] = {a, b};
    return vm_call(vm, c, 2, args, NULL);
}
Value vm_call3(VM *vm, Value c, Value a, Value b, Value d) {
    Value args[3] = {a, b, d};
    return vm_call(vm, c, 3, args, NULL);
}

Value vm_call_method(VM *vm, Value self, const char *name, int argc, Value *argv) {
    StrObj *n = vm_intern_str(vm, name);
    if (!n) return val_null();
    Value meth, slf;
    if (vm_load_method(vm, self, n, &meth, &slf) < 0) return val_null();
    if (val_is_null(meth)) return vm_call(vm, slf, argc, argv, NULL);
    return call_with_self(vm, meth, slf, argc, argv, NULL);
}

Value vm_call_special(VM *vm, Value self, SpecialMethod sp, int argc, Value *argv) {
    Value m = type_special(vm, vm_type_of(vm, self), sp);
    if (val_is_null(m))
        return vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '%s'",
                        vm_type_name(vm, self), vm->special_names[sp]->data);
    if (m.tag == VAL_OBJ && (m.as.o->type == vm->t_function ||
                             (m.as.o->type->layout == OBJ_LAYOUT_NATIVE &&
                              (((NativeObj *)m.as.o)->flags & NATIVEF_METHOD))))
        return call_with_self(vm, m, self, argc, argv, NULL);
    Value b = vm_bind_descriptor(vm, m, self, vm_type_of(vm, self));
    if (val_is_null(b)) return b;
    vm_push_root(vm, b);
    Value r = vm_call(vm, b, argc, argv, NULL);
    vm_pop_root(vm);
    return r;
}

StrObj *call_function_str(VM *vm, Value f) {
    Value saved = vm->exc;
    vm->exc = val_null();
    StrObj *r = NULL;
    Value qn = vm_getattr_opt(vm, f, vm_intern_str(vm, "__qualname__"));
    if (val_is_str(vm, qn)) {
        vm_push_root(vm, qn);
        Value mod = vm_getattr_opt(vm, f, vm_intern_str(vm, "__module__"));
        if (val_is_str(vm, mod) && strcmp(AS_STR(mod)->data, "builtins") != 0)
            r = str_printf(vm, "%s.%s()", AS_STR(mod)->data, AS_STR(qn)->data);
        else
            r = str_printf(vm, "%s()", AS_STR(qn)->data);
        vm_pop_root(vm);
    }
    if (!r) {
        vm->exc = val_null();
        r = str_printf(vm, "%s object", vm_type_name(vm, f));
    }
    vm->exc = saved;
    return r ? r : vm->empty_str;
}

Value call_star_args(VM *vm, Value f, Value args) {
    if (val_is_type(vm, args, vm->t_tuple)) return args;
    TypeObj *t = vm_type_of(vm, args);
    if (val_is_null(type_special(vm, t, SP_ITER)) && val_is_null(type_special(vm, t, SP_GETITEM))) {
        StrObj *fs = call_function_str(vm, f);
        return vm_raise(vm, vm->e_TypeError, "%s argument after * must be an iterable, not %s", fs->data,
                        t->name->data);
    }
    ListObj *l = vm_list_from_iterable(vm, args);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    TupleObj *tu = tuple_from_array(vm, l->items, l->len);
    vm_pop_root(vm);
    return tu ? val_obj(tu) : val_null();
}

Value vm_call_ex(VM *vm, Value callable, Value args, Value kwargs) {
    Value holder = val_null();
    int64_t n = 0;
    Value *items = NULL;
    if (!val_is_null(args)) {
        items = vm_sequence_items(vm, args, &n, &holder);
        if (!items) return val_null();
    }
    vm_push_root(vm, holder);
    DictObj *kd = NULL;
    if (!val_is_null(kwargs) && !val_is_none(kwargs)) {
        if (!vm_isinstance_type(vm, kwargs, vm->t_dict)) {
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_TypeError, "argument after ** must be a mapping, not %s",
                            vm_type_name(vm, kwargs));
        }
        kd = AS_DICT(kwargs);
    }
    int64_t nkw = kd ? kd->used : 0;
    Value *buf = malloc(sizeof(Value) * (size_t)(n + nkw + 1));
    TupleObj *kwnames = NULL;
    if (nkw) {
        kwnames = tuple_new(vm, nkw);
        if (!kwnames) {
            free(buf);
            vm_pop_root(vm);
            return val_null();
        }
    }
    vm_push_root(vm, kwnames ? val_obj(kwnames) : val_null());
    if (n) memcpy(buf, items, sizeof(Value) * (size_t)n);
    int64_t pos = 0, k = 0;
    Value key, val;
    while (kd && dict_next(kd, &pos, &key, &val)) {
        if (!val_is_str(vm, key)) {
            free(buf);
            vm_pop_roots(vm, 2);
            return vm_raise(vm, vm->e_TypeError, "keywords must be strings");
        }
        kwnames->items[k] = key;
        buf[n + k] = val;
        k++;
    }
    /* kd's values stay rooted by the caller's reference to kwargs */
    Value r = vm_call(vm, callable, (int)n, buf, kwnames);
    free(buf);
    vm_pop_roots(vm, 2);
    return r;
}

Value vm_run_code(VM *vm, CodeObj *co, DictObj *globals, DictObj *locals) {
    Frame *f = frame_push(vm, co, NULL, globals, locals);
    if (!f) return val_null();
    return vm->eval_frame(vm, f);
}
