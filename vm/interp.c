/* vm/interp.c — the dispatch loop: one C function evaluates a frame and every script-to-script
 * call it makes inline (no C recursion for ordinary calls), unwinds exceptions through the
 * exception table, and returns to its C caller when its entry frame returns or raises.
 *
 * Discipline (see the invariant in vm/gc.h): before anything that can allocate or call, the
 * handler runs SYNC() so the frame's sp and ip are current, and it leaves its operands on the
 * stack until the result is ready. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/call.h"
#include "vm/coro.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/func.h"
#include "vm/gc.h"
#include "vm/gen.h"
#include "vm/import.h"
#include "vm/iter.h"
#include "vm/match.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/specialize.h"
#include "vm/str.h"
#include "vm/type.h"

#if defined(EMBER_DISPATCH_SWITCH) || !defined(__GNUC__)
#define DISPATCH()                  \
    do {                            \
        next_op = pc->op;           \
        oparg = pc->arg;            \
        pc++;                       \
        goto dispatch_switch;       \
    } while (0)
#define CASE(op) case OP_##op:
#else
#define USE_GOTO 1
#define DISPATCH()                  \
    do {                            \
        oparg = pc->arg;            \
        goto *labels[(pc++)->op];   \
    } while (0)
#define CASE(op) L_##op:
#endif

#define SYNC()                                      \
    do {                                            \
        f->sp = sp;                                 \
        f->ip = (int32_t)(pc - code) - 1;           \
    } while (0)
/* Values move as two 8-byte words, never as one 16-byte block: handlers write a result's tag
 * and payload separately, and a 16-byte reload of those two stores stalls store-to-load
 * forwarding (it cost more than the rest of a loop iteration). */
#define VSET(dst, src)                  \
    do {                                \
        Value _s = (src);               \
        Value *_d = &(dst);             \
        _d->tag = _s.tag;               \
        _d->as.i = _s.as.i;             \
    } while (0)
#define PUSH(v)             \
    do {                    \
        VSET(*sp, (v));     \
        sp++;               \
    } while (0)
#define POP() (*--sp)
#define TOP() (sp[-1])
#define SET_TOP(v) VSET(sp[-1], (v))
#define PEEK(n) (sp[-(ptrdiff_t)(n)])
#define NAME(i) ((StrObj *)f->code->names->items[(i)].as.o)
#define CONST(i) (consts[(i)])
#define LOAD_REGS()                                 \
    do {                                            \
        code = f->code->qcode;                      \
        consts = f->code->consts->items;            \
        locals = f->localsplus;                     \
        sp = f->sp;                                 \
        pc = code + f->ip + 1;                      \
    } while (0)

/* Fuzz builds (meson -Dfuzz=true, tests/fuzz): a budget of backward jumps, so a generated program
 * that loops forever raises RuntimeError instead of timing the fuzzer out.  Nothing in other
 * builds. */
#ifdef EMBER_FUZZ
int64_t vm_fuzz_fuel = -1;   /* < 0: no budget */
#define FUEL(target)                                                                          \
    do {                                                                                      \
        if ((int32_t)(target) < (int32_t)(pc - code) && vm_fuzz_fuel >= 0 && vm_fuzz_fuel-- == 0) { \
            SYNC();                                                                           \
            vm_raise(vm, vm->e_RuntimeError, "fuzz: the budget of loop iterations is spent");  \
            goto error;                                                                       \
        }                                                                                     \
    } while (0)
#else
#define FUEL(target) ((void)0)
#endif

/* A safe point (backward jumps, returns): run the __del__ finalizers the collector queued
 * (vm/gc.c).  One predictable load and branch when none are due. */
#define SAFE_POINT()                                \
    do {                                            \
        if (__builtin_expect(vm->fin_n != 0, 0)) {  \
            SYNC();                                 \
            gc_run_finalizers(vm);                  \
        }                                           \
    } while (0)

/* Quickening (opcodes.def note [13]).  A specialisable base instruction counts down in its pad
 * byte; at zero it asks vm/specialize.c for a form and, if it got one, runs it at once.  A
 * specialised form whose guard fails turns back into its base form with the counter backed
 * off and runs that: the base form computes the answer, so a guard failure costs time only. */
#define SPECIALIZE(call)                                        \
    do {                                                        \
        if (__builtin_expect(pc[-1]._pad-- == 0, 0)) {          \
            uint8_t _before = pc[-1].op;                        \
            call;                                               \
            if (pc[-1].op != _before) {                         \
                pc--;                                           \
                DISPATCH();                                     \
            }                                                   \
        }                                                       \
    } while (0)
#define DEOPT(base)                         \
    do {                                    \
        pc[-1].op = OP_##base;              \
        pc[-1]._pad = CODE_BACKOFF;         \
        pc--;                               \
        DISPATCH();                         \
    } while (0)

static Value unbound_local(VM *vm, Frame *f, uint32_t i) {
    return vm_raise(vm, vm->e_UnboundLocalError,
                    "cannot access local variable '%s' where it is not associated with a value",
                    AS_STR(f->code->varnames->items[i])->data);
}

static StrObj *cell_name(Frame *f, uint32_t i) {
    CodeObj *co = f->code;
    int64_t nc = co->cellvars->len;
    return (int64_t)i < nc ? AS_STR(co->cellvars->items[i]) : AS_STR(co->freevars->items[i - nc]);
}

static Value unbound_deref(VM *vm, Frame *f, uint32_t i) {
    if ((int64_t)i < f->code->cellvars->len)
        return vm_raise(vm, vm->e_UnboundLocalError,
                        "cannot access local variable '%s' where it is not associated with a value",
                        cell_name(f, i)->data);
    return vm_raise(vm, vm->e_NameError,
                    "cannot access free variable '%s' where it is not associated with a value in enclosing scope",
                    cell_name(f, i)->data);
}

static Value name_error(VM *vm, StrObj *name) {
    return vm_raise(vm, vm->e_NameError, "name '%s' is not defined", name->data);
}

/* LOAD_GLOBAL with its inline cache: (globals version, builtins version) -> value. */
static Value load_global(VM *vm, Frame *f, uint32_t oparg, uint16_t cache) {
    StrObj *name = NAME(oparg >> 1);
    InlineCache *c = &f->code->caches[cache];
    /* dict versions are unique across all dicts, so the pair identifies both dicts' state */
    if (cache && c->key1 == f->globals->version && c->key2 == f->builtins->version &&
        !val_is_null(c->value))
        return c->value;
    Value v = dict_get_str(f->globals, name);
    if (val_is_null(v)) v = dict_get_str(f->builtins, name);
    if (val_is_null(v)) return name_error(vm, name);
    if (cache) {
        c->key1 = f->globals->version;
        c->key2 = f->builtins->version;
        c->value = v;
    }
    return v;
}

static Value load_name(VM *vm, Frame *f, StrObj *name) {
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
    if (val_is_null(v)) return name_error(vm, name);
    return v;
}

static int unpack_sequence(VM *vm, Value seq, int64_t n, Value *out) {
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
static int unpack_ex(VM *vm, Value seq, int before, int after, Value *out) {
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

static Value build_string(VM *vm, Value *items, int n) {
    int64_t total = 0;
    for (int i = 0; i < n; i++) total += AS_STR(items[i])->len;
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < n; i++) sb_add_str(&b, AS_STR(items[i]));
    (void)total;
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

static Value format_value(VM *vm, Value v, int flags, Value spec) {
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

static int check_exc_class(VM *vm, Value t) {
    if (val_is_type(vm, t, vm->t_tuple)) {
        TupleObj *tu = AS_TUPLE(t);
        for (int64_t i = 0; i < tu->len; i++)
            if (check_exc_class(vm, tu->items[i]) < 0) return -1;
        return 0;
    }
    if (val_is_obj(t) && vm_isinstance_type(vm, t, vm->t_type) && (AS_TYPE(t)->flags & TYPEF_EXCEPTION))
        return 0;
    vm_raise(vm, vm->e_TypeError, "catching classes that do not inherit from BaseException is not allowed");
    return -1;
}

static int exc_class_matches(VM *vm, Value exc, Value t) {
    if (val_is_type(vm, t, vm->t_tuple)) {
        TupleObj *tu = AS_TUPLE(t);
        for (int64_t i = 0; i < tu->len; i++)
            if (exc_class_matches(vm, exc, tu->items[i])) return 1;
        return 0;
    }
    return vm_isinstance_type(vm, exc, AS_TYPE(t));
}

static int do_raise(VM *vm, Value exc, Value cause) {
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

static Value with_lookup(VM *vm, Value mgr, SpecialMethod sp) {
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
static int dict_merge_kwargs(VM *vm, DictObj *dst, Value src, Value fn) {
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

Value vm_eval_frame_default(VM *vm, Frame *f) {
#ifdef USE_GOTO
    static void *const labels[OP__COUNT] = {
#define OP(name, kind, pop, push, flags, doc) &&L_##name,
#include "vm/opcodes.def"
#undef OP
    };
#endif
    Instr *code;   /* the quickened copy (opcodes.def note [13]) */
    Instr *pc;
    Value *sp;
    Value *locals;
    Value *consts;   /* f->code->consts->items */
    uint32_t oparg;
#ifndef USE_GOTO
    uint8_t next_op;   /* not `op`: handlers have locals of that name */
#endif
    f->is_entry = true;
    vm->frame = f;
    code = f->code->qcode;
    consts = f->code->consts->items;
    locals = f->localsplus;
    sp = f->sp;
    pc = code + f->ip;
    if (f->yielded) {
        /* resuming a generator: the caller pushed the sent value and we continue after the
         * yield, or the caller is throwing an exception in at the yield */
        f->yielded = false;
        if (!val_is_null(vm->exc)) goto error;
        pc = code + f->ip + 1;
    }
    DISPATCH();

#ifndef USE_GOTO
dispatch_switch:
    switch (next_op) {
#endif

    CASE(NOP) DISPATCH();
    CASE(POP_TOP) {
        sp--;
        DISPATCH();
    }
    CASE(PUSH_NULL) {
        PUSH(val_null());
        DISPATCH();
    }
    CASE(COPY) {
        Value v = PEEK(oparg);
        PUSH(v);
        DISPATCH();
    }
    CASE(SWAP) {
        Value t = TOP();
        SET_TOP(PEEK(oparg));
        PEEK(oparg) = t;
        DISPATCH();
    }
    CASE(LOAD_CONST) {
        PUSH(CONST(oparg));
        DISPATCH();
    }
    CASE(LOAD_FAST) {
        Value v = locals[oparg];
        if (val_is_null(v)) {
            SYNC();
            unbound_local(vm, f, oparg);
            goto error;
        }
        PUSH(v);
        DISPATCH();
    }
    CASE(LOAD_FAST_LOAD_FAST) {
        Value a = locals[oparg & 0xFFFF], b = locals[oparg >> 16];
        if (val_is_null(a) || val_is_null(b)) {
            SYNC();
            unbound_local(vm, f, val_is_null(a) ? oparg & 0xFFFF : oparg >> 16);
            goto error;
        }
        PUSH(a);
        PUSH(b);
        pc++;
        DISPATCH();
    }
    CASE(LOAD_FAST_LOAD_CONST) {
        Value a = locals[oparg & 0xFFFF];
        if (val_is_null(a)) {
            SYNC();
            unbound_local(vm, f, oparg & 0xFFFF);
            goto error;
        }
        PUSH(a);
        PUSH(CONST(oparg >> 16));
        pc++;
        DISPATCH();
    }
    CASE(STORE_FAST_LOAD_FAST) {
        VSET(locals[oparg & 0xFFFF], sp[-1]);
        Value b = locals[oparg >> 16];
        if (val_is_null(b)) {
            sp--;
            SYNC();
            unbound_local(vm, f, oparg >> 16);
            goto error;
        }
        SET_TOP(b);
        pc++;
        DISPATCH();
    }
    CASE(STORE_FAST) {
        sp--;
        VSET(locals[oparg], *sp);
        DISPATCH();
    }
    CASE(DELETE_FAST) {
        if (val_is_null(locals[oparg])) {
            SYNC();
            unbound_local(vm, f, oparg);
            goto error;
        }
        locals[oparg] = val_null();
        DISPATCH();
    }
    CASE(LOAD_GLOBAL) {
        {
            /* the cache hit inline; slot 0 (no cache) never matches: versions start at 1 */
            const InlineCache *c = &f->code->caches[pc[-1].cache];
            if (c->key1 == f->globals->version && c->key2 == f->builtins->version && !val_is_null(c->value)) {
                if (oparg & 1) PUSH(val_null());
                PUSH(c->value);
                DISPATCH();
            }
        }
        SYNC();
        Value v = load_global(vm, f, oparg, pc[-1].cache);
        if (val_is_null(v)) goto error;
        if (oparg & 1) PUSH(val_null());
        PUSH(v);
        DISPATCH();
    }
    CASE(STORE_GLOBAL) {
        SYNC();
        if (dict_set_str(vm, f->globals, NAME(oparg), TOP()) < 0) goto error;
        sp--;
        DISPATCH();
    }
    CASE(DELETE_GLOBAL) {
        SYNC();
        if (dict_del_str(vm, f->globals, NAME(oparg)) == 0) {
            name_error(vm, NAME(oparg));
            goto error;
        }
        DISPATCH();
    }
    CASE(LOAD_NAME) {
        SYNC();
        Value v = load_name(vm, f, NAME(oparg));
        if (val_is_null(v)) goto error;
        PUSH(v);
        DISPATCH();
    }
    CASE(STORE_NAME) {
        SYNC();
        DictObj *d = f->locals_dict ? f->locals_dict : f->globals;
        int rc = d->hdr.type == vm->t_dict ? dict_set_str(vm, d, NAME(oparg), TOP())
                                           : vm_setitem(vm, val_obj(d), val_obj(NAME(oparg)), TOP());
        if (rc < 0) goto error;
        sp--;
        DISPATCH();
    }
    CASE(DELETE_NAME) {
        SYNC();
        DictObj *d = f->locals_dict ? f->locals_dict : f->globals;
        if (d->hdr.type == vm->t_dict) {
            if (dict_del_str(vm, d, NAME(oparg)) == 0) {
                name_error(vm, NAME(oparg));
                goto error;
            }
        } else if (vm_delitem(vm, val_obj(d), val_obj(NAME(oparg))) < 0) {
            if (vm_exc_matches(vm, vm->e_KeyError)) {
                vm_clear_exc(vm);
                name_error(vm, NAME(oparg));
            }
            goto error;
        }
        DISPATCH();
    }
    CASE(MAKE_CELL) {
        SYNC();
        int32_t slot = f->code->nlocals + (int32_t)oparg;
        CellObj *c = gc_alloc(vm, vm->t_cell, sizeof(CellObj));
        if (!c) goto error;
        int32_t a = f->code->cell2arg[oparg];
        c->v = a >= 0 ? locals[a] : val_null();
        locals[slot] = val_obj(c);
        DISPATCH();
    }
    CASE(COPY_FREE_VARS) {
        FunctionObj *fn = (FunctionObj *)f->func;
        int32_t base = f->code->nlocals + (int32_t)f->code->cellvars->len;
        for (uint32_t i = 0; i < oparg; i++) locals[base + i] = fn->closure->items[i];
        DISPATCH();
    }
    CASE(LOAD_CLOSURE) {
        PUSH(locals[f->code->nlocals + oparg]);
        DISPATCH();
    }
    CASE(LOAD_DEREF) {
        CellObj *c = (CellObj *)locals[f->code->nlocals + oparg].as.o;
        if (val_is_null(c->v)) {
            SYNC();
            unbound_deref(vm, f, oparg);
            goto error;
        }
        PUSH(c->v);
        DISPATCH();
    }
    CASE(STORE_DEREF) {
        CellObj *c = (CellObj *)locals[f->code->nlocals + oparg].as.o;
        c->v = POP();
        DISPATCH();
    }
    CASE(DELETE_DEREF) {
        CellObj *c = (CellObj *)locals[f->code->nlocals + oparg].as.o;
        if (val_is_null(c->v)) {
            SYNC();
            unbound_deref(vm, f, oparg);
            goto error;
        }
        c->v = val_null();
        DISPATCH();
    }
    CASE(LOAD_CLASSDEREF) {
        SYNC();
        StrObj *name = cell_name(f, oparg);
        Value v = val_null();
        if (f->locals_dict && f->locals_dict->hdr.type == vm->t_dict) {
            v = dict_get_str(f->locals_dict, name);
        } else if (f->locals_dict) {
            v = vm_getitem(vm, val_obj(f->locals_dict), val_obj(name));
            if (val_is_null(v)) {
                if (!vm_exc_matches(vm, vm->e_KeyError)) goto error;
                vm_clear_exc(vm);
            }
        }
        if (val_is_null(v)) {
            CellObj *c = (CellObj *)locals[f->code->nlocals + oparg].as.o;
            v = c->v;
            if (val_is_null(v)) {
                unbound_deref(vm, f, oparg);
                goto error;
            }
        }
        PUSH(v);
        DISPATCH();
    }

    CASE(LOAD_ATTR) {
        Value o = TOP();
        uint16_t cslot = pc[-1].cache;
        InlineCache *c = &f->code->caches[cslot];
        if (o.tag == VAL_OBJ && cslot) {
            TypeObj *t = o.as.o->type;
            if (c->key1 == (uint64_t)(uintptr_t)t && c->key2 == vm->class_epoch) {
                DictObj *d = *(DictObj **)((char *)o.as.o + t->dict_offset);
                if (d) {
                    StrObj *name = NAME(oparg);
                    int64_t h = c->hint;
                    if (!(h < d->nentries && d->entries[h].key.as.o == (Obj *)name && d->entries[h].key.tag == VAL_OBJ))
                        h = c->hint = dict_find_str(d, name);
                    if (h >= 0) {
                        SET_TOP(d->entries[h].value);
                        DISPATCH();
                    }
                }
            }
        }
        SYNC();
        Value v = vm_getattr(vm, o, NAME(oparg));
        if (val_is_null(v)) goto error;
        if (o.tag == VAL_OBJ && cslot && !attr_cache_fill_load(vm, o.as.o->type, NAME(oparg), c)) c->key1 = 0;
        SET_TOP(v);
        DISPATCH();
    }
    CASE(STORE_ATTR) {
        Value o = TOP();
        uint16_t cslot = pc[-1].cache;
        InlineCache *c = &f->code->caches[cslot];
        if (o.tag == VAL_OBJ && cslot) {
            TypeObj *t = o.as.o->type;
            if (c->key1 == (uint64_t)(uintptr_t)t && c->key2 == vm->class_epoch) {
                DictObj *d = *(DictObj **)((char *)o.as.o + t->dict_offset);
                if (d) {
                    StrObj *name = NAME(oparg);
                    int64_t h = c->hint;
                    if (!(h < d->nentries && d->entries[h].key.as.o == (Obj *)name && d->entries[h].key.tag == VAL_OBJ))
                        h = c->hint = dict_find_str(d, name);
                    if (h >= 0) {
                        dict_set_at(d, h, PEEK(2));
                        sp -= 2;
                        DISPATCH();
                    }
                }
            }
        }
        SYNC();
        if (vm_setattr(vm, o, NAME(oparg), PEEK(2)) < 0) goto error;
        if (o.tag == VAL_OBJ && cslot && !attr_cache_fill_store(vm, o.as.o->type, NAME(oparg), c)) c->key1 = 0;
        sp -= 2;
        DISPATCH();
    }
    CASE(DELETE_ATTR) {
        SYNC();
        if (vm_delattr(vm, TOP(), NAME(oparg)) < 0) goto error;
        sp--;
        DISPATCH();
    }
    CASE(LOAD_METHOD) {
        Value o = TOP();
        uint16_t cslot = pc[-1].cache;
        InlineCache *c = &f->code->caches[cslot];
        if (o.tag == VAL_OBJ && cslot) {
            TypeObj *t = o.as.o->type;
            if (c->key1 == (uint64_t)(uintptr_t)t && c->key2 == vm->class_epoch) {
                DictObj *d = t->dict_offset ? *(DictObj **)((char *)o.as.o + t->dict_offset) : NULL;
                /* the instance dict must not shadow the method: known when its keys are those
                 * already checked (hint: the keys_version seen without the name) */
                if (!d || (int64_t)d->keys_version == c->hint ||
                    (dict_find_str(d, NAME(oparg)) < 0 && (c->hint = (int64_t)d->keys_version, true))) {
                    SET_TOP(c->value);
                    PUSH(o);
                    DISPATCH();
                }
            }
        }
        SYNC();
        Value meth, self;
        if (vm_load_method(vm, o, NAME(oparg), &meth, &self) < 0) goto error;
        if (!val_is_null(meth) && cslot && o.tag == VAL_OBJ && !attr_cache_fill_method(vm, o.as.o->type, NAME(oparg), c))
            c->key1 = 0;
        SET_TOP(meth);
        PUSH(self);
        DISPATCH();
    }
    CASE(BINARY_SUBSCR) {
        Value c = PEEK(2), k = TOP();
        if (c.tag == VAL_OBJ && c.as.o->type == vm->t_list && k.tag == VAL_INT) {
            ListObj *l = AS_LIST(c);
            int64_t i = k.as.i < 0 ? k.as.i + l->len : k.as.i;
            if (i >= 0 && i < l->len) {
                sp--;
                SET_TOP(l->items[i]);
                DISPATCH();
            }
        }
        SYNC();
        Value v = vm_getitem(vm, c, k);
        if (val_is_null(v)) goto error;
        sp--;
        SET_TOP(v);
        DISPATCH();
    }
    CASE(STORE_SUBSCR) {
        SYNC();
        if (vm_setitem(vm, PEEK(2), TOP(), PEEK(3)) < 0) goto error;
        sp -= 3;
        DISPATCH();
    }
    CASE(DELETE_SUBSCR) {
        SYNC();
        if (vm_delitem(vm, PEEK(2), TOP()) < 0) goto error;
        sp -= 2;
        DISPATCH();
    }
    CASE(BUILD_SLICE) {
        SYNC();
        Value step = oparg == 3 ? TOP() : val_none();
        Value s = slice_new(vm, PEEK(oparg), PEEK(oparg - 1), step);
        if (val_is_null(s)) goto error;
        sp -= oparg;
        PUSH(s);
        DISPATCH();
    }

    CASE(BINARY_OP) {
        SPECIALIZE(spec_binary_op(f->code, pc - 1, PEEK(2), TOP()));
        Value a = PEEK(2), b = TOP();
        if (a.tag == VAL_INT && b.tag == VAL_INT) {
            int64_t r;
            int op = (int)oparg;
            if (op >= BINOP_INPLACE) op -= BINOP_INPLACE;
            switch (op) {
            case BINOP_ADD:
                if (__builtin_add_overflow(a.as.i, b.as.i, &r)) break;
                sp--;
                SET_TOP(val_int(r));
                DISPATCH();
            case BINOP_SUBTRACT:
                if (__builtin_sub_overflow(a.as.i, b.as.i, &r)) break;
                sp--;
                SET_TOP(val_int(r));
                DISPATCH();
            case BINOP_MULTIPLY:
                if (__builtin_mul_overflow(a.as.i, b.as.i, &r)) break;
                sp--;
                SET_TOP(val_int(r));
                DISPATCH();
            default: break;
            }
        } else if (a.tag == VAL_FLOAT && b.tag == VAL_FLOAT) {
            int op = (int)oparg;
            if (op >= BINOP_INPLACE) op -= BINOP_INPLACE;
            double r;
            switch (op) {
            case BINOP_ADD: r = a.as.f + b.as.f; goto float_done;
            case BINOP_SUBTRACT: r = a.as.f - b.as.f; goto float_done;
            case BINOP_MULTIPLY: r = a.as.f * b.as.f; goto float_done;
            default: break;
            }
            goto binop_slow;
        float_done:
            sp--;
            SET_TOP(val_float(r));
            DISPATCH();
        }
    binop_slow:
        SYNC();
        Value r = vm_binary_op(vm, (int)oparg, a, b);
        if (val_is_null(r)) goto error;
        sp--;
        SET_TOP(r);
        DISPATCH();
    }
    CASE(UNARY_NEGATIVE) {
        Value v = TOP();
        if (v.tag == VAL_FLOAT) {
            SET_TOP(val_float(-v.as.f));
            DISPATCH();
        }
        SYNC();
        Value r = vm_unary_op(vm, OP_UNARY_NEGATIVE, v);
        if (val_is_null(r)) goto error;
        SET_TOP(r);
        DISPATCH();
    }
    CASE(UNARY_POSITIVE) {
        SYNC();
        Value r = vm_unary_op(vm, OP_UNARY_POSITIVE, TOP());
        if (val_is_null(r)) goto error;
        SET_TOP(r);
        DISPATCH();
    }
    CASE(UNARY_INVERT) {
        SYNC();
        Value r = vm_unary_op(vm, OP_UNARY_INVERT, TOP());
        if (val_is_null(r)) goto error;
        SET_TOP(r);
        DISPATCH();
    }
    CASE(UNARY_NOT) {
        Value v = TOP();
        if (v.tag == VAL_BOOL) {
            SET_TOP(val_bool(!v.as.b));
            DISPATCH();
        }
        SYNC();
        int t = vm_truthy(vm, v);
        if (t < 0) goto error;
        SET_TOP(val_bool(!t));
        DISPATCH();
    }
    CASE(COMPARE_OP) {
        SPECIALIZE(spec_compare_op(f->code, pc - 1, PEEK(2), TOP()));
        Value a = PEEK(2), b = TOP();
        if (a.tag == VAL_INT && b.tag == VAL_INT) {
            bool r;
            switch (oparg) {
            case CMP_LT: r = a.as.i < b.as.i; break;
            case CMP_LE: r = a.as.i <= b.as.i; break;
            case CMP_EQ: r = a.as.i == b.as.i; break;
            case CMP_NE: r = a.as.i != b.as.i; break;
            case CMP_GT: r = a.as.i > b.as.i; break;
            default: r = a.as.i >= b.as.i; break;
            }
            /* compare-and-branch: a conditional jump that consumes the result needs no bool */
            if (pc->op == OP_POP_JUMP_IF_FALSE || pc->op == OP_POP_JUMP_IF_TRUE) {
                sp -= 2;
                pc = (r == (pc->op == OP_POP_JUMP_IF_TRUE)) ? code + pc->arg : pc + 1;
                DISPATCH();
            }
            sp--;
            SET_TOP(val_bool(r));
            DISPATCH();
        }
        SYNC();
        Value r = vm_compare(vm, (CompareOp)oparg, a, b);
        if (val_is_null(r)) goto error;
        sp--;
        SET_TOP(r);
        DISPATCH();
    }
    CASE(IS_OP) {
        bool r = val_identical(PEEK(2), TOP()) ^ (oparg != 0);
        sp--;
        SET_TOP(val_bool(r));
        DISPATCH();
    }
    CASE(CONTAINS_OP) {
        SYNC();
        int r = vm_contains(vm, TOP(), PEEK(2));
        if (r < 0) goto error;
        sp--;
        SET_TOP(val_bool((r != 0) ^ (oparg != 0)));
        DISPATCH();
    }

    CASE(JUMP) {
        FUEL(oparg);
        SAFE_POINT();
        pc = code + oparg;
        DISPATCH();
    }
    CASE(POP_JUMP_IF_FALSE) {
        Value v = TOP();
        int t;
        if (v.tag == VAL_BOOL) t = v.as.b;
        else {
            SYNC();
            t = vm_truthy(vm, v);
            if (t < 0) goto error;
        }
        sp--;
        if (!t) {
            FUEL(oparg);
            pc = code + oparg;
        }
        DISPATCH();
    }
    CASE(POP_JUMP_IF_TRUE) {
        Value v = TOP();
        int t;
        if (v.tag == VAL_BOOL) t = v.as.b;
        else {
            SYNC();
            t = vm_truthy(vm, v);
            if (t < 0) goto error;
        }
        sp--;
        if (t) {
            FUEL(oparg);
            pc = code + oparg;
        }
        DISPATCH();
    }
    CASE(POP_JUMP_IF_NONE) {
        if (val_is_none(POP())) pc = code + oparg;
        DISPATCH();
    }
    CASE(POP_JUMP_IF_NOT_NONE) {
        if (!val_is_none(POP())) pc = code + oparg;
        DISPATCH();
    }
    CASE(JUMP_IF_FALSE_OR_POP) {
        SYNC();
        int t = vm_truthy(vm, TOP());
        if (t < 0) goto error;
        if (!t) pc = code + oparg;
        else sp--;
        DISPATCH();
    }
    CASE(JUMP_IF_TRUE_OR_POP) {
        SYNC();
        int t = vm_truthy(vm, TOP());
        if (t < 0) goto error;
        if (t) pc = code + oparg;
        else sp--;
        DISPATCH();
    }
    CASE(GET_ITER) {
        SYNC();
        Value it = vm_iter(vm, TOP());
        if (val_is_null(it)) goto error;
        SET_TOP(it);
        DISPATCH();
    }
    CASE(FOR_ITER) {
        SPECIALIZE(spec_for_iter(f->code, pc - 1, TOP()));
        Value it = TOP();
        Value x;
        if (it.tag == VAL_OBJ && it.as.o->type->layout == OBJ_LAYOUT_ITER) {
            IterObj *io = (IterObj *)it.as.o;
            if (io->next == range_iter_next) {
                if (io->n > 0) {
                    x = val_int(io->i);
                    io->i += io->b.as.i;
                    io->n--;
                    PUSH(x);
                    DISPATCH();
                }
                sp--;
                pc = code + oparg;
                DISPATCH();
            }
            if (io->next == list_iter_next) {
                ListObj *l = AS_LIST(io->a);
                if (io->i < l->len) {
                    PUSH(l->items[io->i++]);
                    DISPATCH();
                }
                io->i = INT64_MAX;
                sp--;
                pc = code + oparg;
                DISPATCH();
            }
            SYNC();
            x = io->next(vm, io);
        } else {
            SYNC();
            x = vm_next(vm, it);
        }
        if (val_is_null(x)) {
            if (!val_is_null(vm->exc)) goto error;
            sp--;
            pc = code + oparg;
            DISPATCH();
        }
        PUSH(x);
        DISPATCH();
    }
    CASE(RETURN_VALUE) {
        SAFE_POINT();
        Value r = POP();
        f->sp = sp;
        /* a frame object outlives the frame: it shows the line of the return */
        if (__builtin_expect(f->obj != NULL, 0)) f->ip = (int32_t)(pc - code) - 1;
        if (f->is_entry) {
            vm->frame = f->prev;
            frame_pop(vm, f);
            return r;
        }
        Frame *caller = f->prev;
        frame_pop(vm, f);
        f = caller;
        vm->frame = f;
        LOAD_REGS();
        PUSH(r);
        DISPATCH();
    }

    CASE(BUILD_TUPLE) {
        SYNC();
        TupleObj *t = tuple_from_array(vm, sp - oparg, oparg);
        if (!t) goto error;
        sp -= oparg;
        PUSH(val_obj(t));
        DISPATCH();
    }
    CASE(BUILD_LIST) {
        SYNC();
        ListObj *l = list_from_array(vm, sp - oparg, oparg);
        if (!l) goto error;
        sp -= oparg;
        PUSH(val_obj(l));
        DISPATCH();
    }
    CASE(BUILD_SET) {
        SYNC();
        SetObj *s = set_new(vm, vm->t_set);
        if (!s) goto error;
        PUSH(val_obj(s));
        SYNC();
        for (uint32_t i = 0; i < oparg; i++)
            if (set_add(vm, s, sp[-1 - (int)oparg + (int)i]) < 0) goto error;
        sp -= oparg + 1;
        PUSH(val_obj(s));
        DISPATCH();
    }
    CASE(BUILD_MAP) {
        SYNC();
        DictObj *d = dict_new(vm);
        if (!d) goto error;
        PUSH(val_obj(d));
        SYNC();
        Value *kv = sp - 1 - 2 * oparg;
        for (uint32_t i = 0; i < oparg; i++)
            if (dict_set(vm, d, kv[2 * i], kv[2 * i + 1]) < 0) goto error;
        sp -= 2 * oparg + 1;
        PUSH(val_obj(d));
        DISPATCH();
    }
    CASE(BUILD_CONST_KEY_MAP) {
        SYNC();
        DictObj *d = dict_new(vm);
        if (!d) goto error;
        PUSH(val_obj(d));
        SYNC();
        TupleObj *keys = AS_TUPLE(PEEK(2));
        Value *vals = sp - 2 - oparg;
        for (uint32_t i = 0; i < oparg; i++)
            if (dict_set(vm, d, keys->items[i], vals[i]) < 0) goto error;
        sp -= oparg + 2;
        PUSH(val_obj(d));
        DISPATCH();
    }
    CASE(BUILD_STRING) {
        SYNC();
        Value s = build_string(vm, sp - oparg, (int)oparg);
        if (val_is_null(s)) goto error;
        sp -= oparg;
        PUSH(s);
        DISPATCH();
    }
    CASE(LIST_APPEND) {
        SYNC();
        if (list_append(vm, AS_LIST(PEEK(oparg + 1)), TOP()) < 0) goto error;
        sp--;
        DISPATCH();
    }
    CASE(SET_ADD) {
        SYNC();
        if (set_add(vm, (SetObj *)PEEK(oparg + 1).as.o, TOP()) < 0) goto error;
        sp--;
        DISPATCH();
    }
    CASE(MAP_ADD) {
        SYNC();
        if (dict_set(vm, AS_DICT(PEEK(oparg + 2)), PEEK(2), TOP()) < 0) goto error;
        sp -= 2;
        DISPATCH();
    }
    CASE(LIST_EXTEND) {
        SYNC();
        Value src = TOP();
        if (list_extend(vm, AS_LIST(PEEK(oparg + 1)), src) < 0) {
            if (vm_exc_matches(vm, vm->e_TypeError) && val_is_null(type_special(vm, vm_type_of(vm, src), SP_ITER)) &&
                !val_is_obj(src)) {
                vm_clear_exc(vm);
                vm_raise(vm, vm->e_TypeError, "Value after * must be an iterable, not %s", vm_type_name(vm, src));
            }
            goto error;
        }
        sp--;
        DISPATCH();
    }
    CASE(SET_UPDATE) {
        SYNC();
        if (set_update(vm, (SetObj *)PEEK(oparg + 1).as.o, TOP()) < 0) goto error;
        sp--;
        DISPATCH();
    }
    CASE(DICT_UPDATE) {
        SYNC();
        if (dict_update(vm, AS_DICT(PEEK(oparg + 1)), TOP()) < 0) {
            if (vm_exc_matches(vm, vm->e_AttributeError) || vm_exc_matches(vm, vm->e_TypeError)) {
                vm_clear_exc(vm);
                vm_raise(vm, vm->e_TypeError, "'%s' object is not a mapping", vm_type_name(vm, TOP()));
            }
            goto error;
        }
        sp--;
        DISPATCH();
    }
    CASE(DICT_MERGE) {
        SYNC();
        Value src = TOP();
        DictObj *dst = AS_DICT(PEEK(oparg + 1));
        Value fn = PEEK(oparg + 3);   /* (null, callable, args, dict, .., src) */
        if (dict_merge_kwargs(vm, dst, src, fn) < 0) goto error;
        sp--;
        DISPATCH();
    }
    CASE(LIST_TO_TUPLE) {
        SYNC();
        ListObj *l = AS_LIST(TOP());
        TupleObj *t = tuple_from_array(vm, l->items, l->len);
        if (!t) goto error;
        SET_TOP(val_obj(t));
        DISPATCH();
    }
    CASE(UNPACK_SEQUENCE) {
        SYNC();
        Value seq = TOP();
        /* small buffers only: this frame is on the C stack once per nested native->script
         * call, so its size bounds the recursion depth */
        Value small[8];
        Value *out = oparg <= 8 ? small : malloc(sizeof(Value) * oparg);
        if (!out) {
            vm_no_memory(vm);
            goto error;
        }
        if (unpack_sequence(vm, seq, oparg, out) < 0) {
            if (out != small) free(out);
            goto error;
        }
        sp--;
        for (uint32_t i = 0; i < oparg; i++) PUSH(out[i]);
        if (out != small) free(out);
        DISPATCH();
    }
    CASE(UNPACK_EX) {
        SYNC();
        int before = (int)(oparg & 0xFF), after = (int)(oparg >> 8);
        Value small[8];
        int total = before + after + 1;
        Value *tmp = total <= 8 ? small : malloc(sizeof(Value) * (size_t)total);
        if (!tmp) {
            vm_no_memory(vm);
            goto error;
        }
        if (unpack_ex(vm, TOP(), before, after, tmp) < 0) {
            if (tmp != small) free(tmp);
            goto error;
        }
        sp--;
        for (int i = 0; i < total; i++) PUSH(tmp[i]);
        if (tmp != small) free(tmp);
        DISPATCH();
    }
    CASE(FORMAT_VALUE) {
        SYNC();
        bool has_spec = oparg & 4;
        Value spec = has_spec ? TOP() : val_null();
        Value v = has_spec ? PEEK(2) : TOP();
        Value r = format_value(vm, v, (int)oparg, spec);
        if (val_is_null(r)) goto error;
        if (has_spec) sp--;
        SET_TOP(r);
        DISPATCH();
    }

    CASE(MAKE_FUNCTION) {
        SYNC();
        Value fn = func_make(vm, f, (int)oparg, sp);
        if (val_is_null(fn)) goto error;
        int consumed = 1 - code_stack_effect(OP_MAKE_FUNCTION, oparg, false);
        sp -= consumed;
        PUSH(fn);
        DISPATCH();
    }
    CASE(KW_NAMES) {
        f->kwnames = AS_TUPLE(CONST(oparg));
        DISPATCH();
    }
    CASE(CALL) {
        SPECIALIZE(spec_call(vm, f->code, pc - 1, sp));
        TupleObj *kw = f->kwnames;
        f->kwnames = NULL;
        int nkw = kw ? (int)kw->len : 0;
        int n = (int)oparg;
        Value *args;
        Value callable;
        int argc;
        if (!val_is_null(PEEK(n + 2))) {
            callable = PEEK(n + 2);
            args = sp - n - 1;
            argc = n - nkw + 1;
        } else {
            callable = PEEK(n + 1);
            args = sp - n;
            argc = n - nkw;
        }
        SYNC();
        if (callable.tag == VAL_OBJ && callable.as.o->type == vm->t_function &&
            vm->eval_frame == vm_eval_frame_default) {
            FunctionObj *fn = (FunctionObj *)callable.as.o;
            CodeObj *co = fn->code;
            if (!(co->flags & CO_GENERATOR_KINDS)) {
                Frame *nf = frame_push(vm, co, (Obj *)fn, fn->globals, NULL);
                if (!nf) goto error;
                if (!kw && argc == co->argcount && co->kwonlyargcount == 0 &&
                    !(co->flags & (CO_VARARGS | CO_VARKEYWORDS))) {
                    for (int i = 0; i < argc; i++) nf->localsplus[i] = args[i];
                } else {
                    vm->frame = nf;
                    nf->sp = nf->stack;
                    int rc = call_bind_args(vm, fn, nf->localsplus, argc, args, kw);
                    vm->frame = f;
                    if (rc < 0) {
                        frame_pop(vm, nf);
                        goto error;
                    }
                }
                f->sp = sp - n - 2;
                nf->is_entry = false;
                f = nf;
                vm->frame = f;
                code = f->code->qcode;
                consts = f->code->consts->items;
                locals = f->localsplus;
                sp = f->sp;
                pc = code;
                DISPATCH();
            }
        }
        Value r = vm_call(vm, callable, argc, args, kw);
        if (val_is_null(r)) goto error;
        sp -= n + 2;
        PUSH(r);
        DISPATCH();
    }
    CASE(CALL_FUNCTION_EX) {
        SYNC();
        bool has_kw = oparg & 1;
        Value kwargs = has_kw ? TOP() : val_null();
        Value args = has_kw ? PEEK(2) : TOP();
        Value callable = has_kw ? PEEK(3) : PEEK(2);
        if (!val_is_type(vm, args, vm->t_tuple)) {
            /* f(*it) passes `it` itself (CPython's single-starred shortcut) */
            args = call_star_args(vm, callable, args);
            if (val_is_null(args)) goto error;
            if (has_kw) PEEK(2) = args;
            else TOP() = args;
        }
        Value r = vm_call_ex(vm, callable, args, kwargs);
        if (val_is_null(r)) goto error;
        sp -= has_kw ? 4 : 3;
        PUSH(r);
        DISPATCH();
    }
    CASE(LOAD_BUILD_CLASS) {
        SYNC();   /* interning the name may allocate */
        Value b = dict_get_str(f->builtins, vm_intern_str(vm, "__build_class__"));
        if (val_is_null(b)) {
            SYNC();
            vm_raise(vm, vm->e_NameError, "__build_class__ not found");
            goto error;
        }
        PUSH(b);
        DISPATCH();
    }

    CASE(YIELD_VALUE) {
        Value v = POP();
        f->sp = sp;
        f->ip = (int32_t)(pc - code) - 1;
        f->yielded = true;
        vm->frame = f->prev;
        return v;
    }
    CASE(GET_YIELD_FROM_ITER) {
        Value v = TOP();
        if (val_is_type(vm, v, vm->t_coroutine)) {
            if (!(f->code->flags & (CO_COROUTINE | CO_ITERABLE_COROUTINE))) {
                SYNC();
                vm_raise(vm, vm->e_TypeError, "cannot 'yield from' a coroutine object in a non-coroutine generator");
                goto error;
            }
        } else if (!val_is_type(vm, v, vm->t_generator)) {
            SYNC();
            Value it = vm_iter(vm, v);
            if (val_is_null(it)) goto error;
            SET_TOP(it);
        }
        DISPATCH();
    }
    CASE(GET_LEN) {
        SYNC();
        int64_t n = vm_len(vm, TOP());
        if (n < 0) goto error;
        PUSH(val_int(n));
        DISPATCH();
    }
    CASE(MATCH_MAPPING) {
        SYNC();
        int r = match_is_mapping(vm, TOP());
        if (r < 0) goto error;
        PUSH(val_bool(r));
        DISPATCH();
    }
    CASE(MATCH_SEQUENCE) {
        SYNC();
        int r = match_is_sequence(vm, TOP());
        if (r < 0) goto error;
        PUSH(val_bool(r));
        DISPATCH();
    }
    CASE(MATCH_KEYS) {
        SYNC();
        Value values = match_keys(vm, PEEK(2), TOP());
        if (val_is_null(values)) goto error;
        PUSH(values);
        DISPATCH();
    }
    CASE(MATCH_CLASS) {
        SYNC();
        Value attrs = match_class(vm, PEEK(3), PEEK(2), (int64_t)oparg, TOP());
        if (val_is_null(attrs)) goto error;
        sp -= 2;
        SET_TOP(attrs);
        DISPATCH();
    }
    CASE(GET_AWAITABLE) {
        SYNC();
        Value it = coro_get_awaitable(vm, TOP(), (int)oparg);
        if (val_is_null(it)) goto error;
        SET_TOP(it);
        DISPATCH();
    }
    CASE(GET_AITER) {
        SYNC();
        Value it = coro_get_aiter(vm, TOP());
        if (val_is_null(it)) goto error;
        SET_TOP(it);
        DISPATCH();
    }
    CASE(GET_ANEXT) {
        SYNC();
        Value aw = coro_get_anext(vm, TOP());
        if (val_is_null(aw)) goto error;
        PUSH(aw);
        DISPATCH();
    }
    CASE(BEFORE_ASYNC_WITH) {
        SYNC();
        Value exit = val_null();
        Value r = coro_before_async_with(vm, TOP(), &exit);
        if (val_is_null(r)) goto error;
        SET_TOP(exit);
        PUSH(r);
        DISPATCH();
    }
    CASE(END_ASYNC_FOR) {
        SYNC();
        Value exc = POP();
        if (vm_isinstance_type(vm, exc, vm->e_StopAsyncIteration)) {
            sp--;   /* the async iterator: the loop is over */
            DISPATCH();
        }
        vm->exc = exc;   /* re-raised without a new traceback entry, as RERAISE */
        f->sp = sp;
        goto unwind;
    }
    CASE(ASYNC_GEN_WRAP) {
        SYNC();
        Value w = coro_wrap_value(vm, TOP());
        if (val_is_null(w)) goto error;
        SET_TOP(w);
        DISPATCH();
    }
    CASE(SEND) {
        SYNC();
        Value recv = PEEK(2), v = TOP();
        Value r;
        if (val_is_type(vm, recv, vm->t_generator) || val_is_type(vm, recv, vm->t_coroutine)) {
            bool done;
            Value ret = val_none();
            r = gen_resume(vm, (GenObj *)recv.as.o, v, val_null(), &done, &ret);
            if (val_is_null(r)) {
                if (!val_is_null(vm->exc)) goto error;
                sp -= 2;
                PUSH(ret);
                pc = code + oparg;
                DISPATCH();
            }
        } else if (val_is_none(v) && recv.tag == VAL_OBJ && recv.as.o->type->layout == OBJ_LAYOUT_ITER) {
            r = vm_next(vm, recv);   /* built-in iterators end without a value */
            if (val_is_null(r)) {
                if (!val_is_null(vm->exc)) goto error;
                sp -= 2;
                PUSH(val_none());
                pc = code + oparg;
                DISPATCH();
            }
        } else {
            /* __next__() for None when there is one, else send(v); the StopIteration that
             * ends the delegation carries its return value */
            r = val_is_none(v) && !val_is_null(type_special(vm, vm_type_of(vm, recv), SP_NEXT))
                    ? vm_call_special(vm, recv, SP_NEXT, 0, NULL)
                    : vm_call_method(vm, recv, "send", 1, &v);
            if (val_is_null(r)) {
                if (!vm_exc_matches(vm, vm->e_StopIteration)) goto error;
                Value e = vm_fetch_exc(vm);
                TupleObj *a = ((ExceptionObj *)e.as.o)->args;
                sp -= 2;
                PUSH(a->len ? a->items[0] : val_none());
                pc = code + oparg;
                DISPATCH();
            }
        }
        SET_TOP(r);
        DISPATCH();
    }

    CASE(RAISE_VARARGS) {
        SYNC();
        Value exc = oparg >= 1 ? PEEK(oparg) : val_null();
        Value cause = oparg == 2 ? TOP() : val_null();
        int r = do_raise(vm, exc, cause);
        if (r == 1) goto unwind;
        goto error;
    }
    CASE(RERAISE) {
        SYNC();
        vm->exc = POP();
        f->sp = sp;
        goto unwind;
    }
    CASE(PUSH_EXC_INFO) {
        Value e = TOP();
        SET_TOP(vm->handled);
        PUSH(e);
        vm->handled = e;
        DISPATCH();
    }
    CASE(POP_EXCEPT) {
        vm->handled = POP();
        DISPATCH();
    }
    CASE(CHECK_EXC_MATCH) {
        SYNC();
        Value t = TOP();
        if (check_exc_class(vm, t) < 0) goto error;
        /* a plain subclass test, as CPython's PyErr_GivenExceptionMatches (no metaclass hooks) */
        int m = exc_class_matches(vm, PEEK(2), t);
        SET_TOP(val_bool(m));
        DISPATCH();
    }
    CASE(LOAD_ASSERTION_ERROR) {
        PUSH(val_obj(vm->e_AssertionError));
        DISPATCH();
    }
    CASE(BEFORE_WITH) {
        SYNC();
        Value mgr = TOP();
        Value enter = with_lookup(vm, mgr, SP_ENTER);
        if (val_is_null(enter)) goto error;
        PUSH(enter);
        SYNC();
        Value exit = with_lookup(vm, mgr, SP_EXIT);
        if (val_is_null(exit)) goto error;
        PEEK(2) = exit;
        sp--;
        PUSH(enter);     /* keep enter rooted while calling it */
        SYNC();
        Value r = vm_call0(vm, enter);
        if (val_is_null(r)) goto error;
        SET_TOP(r);
        DISPATCH();
    }
    CASE(WITH_EXCEPT_START) {
        SYNC();
        Value exc = TOP();
        Value exit = PEEK(3);
        Value tb = val_none();
        if (val_is_obj(exc) && (exc.as.o->type->flags & TYPEF_EXCEPTION)) tb = ((ExceptionObj *)exc.as.o)->traceback;
        Value r = vm_call3(vm, exit, val_obj(vm_type_of(vm, exc)), exc, tb);
        if (val_is_null(r)) goto error;
        PUSH(r);
        DISPATCH();
    }

    CASE(PRINT_EXPR) {
        SYNC();
        Value sys = dict_get_c(vm, vm->modules, "sys");
        Value hook = val_is_type(vm, sys, vm->t_module) ? dict_get_c(vm, ((ModuleObj *)sys.as.o)->dict, "displayhook")
                                                        : val_null();
        if (val_is_null(hook)) {
            vm_raise(vm, vm->e_RuntimeError, "lost sys.displayhook");
            goto error;
        }
        Value r = vm_call1(vm, hook, TOP());
        if (val_is_null(r)) goto error;
        sp--;
        DISPATCH();
    }
    CASE(IMPORT_NAME) {
        SYNC();
        Value m = vm_import_name(vm, NAME(oparg), TOP(), PEEK(2), f->globals);
        if (val_is_null(m)) goto error;
        sp--;
        SET_TOP(m);
        DISPATCH();
    }
    CASE(IMPORT_FROM) {
        SYNC();
        Value v = vm_import_from(vm, TOP(), NAME(oparg));
        if (val_is_null(v)) goto error;
        PUSH(v);
        DISPATCH();
    }
    CASE(IMPORT_STAR) {
        SYNC();
        DictObj *d = f->locals_dict ? f->locals_dict : f->globals;
        if (vm_import_star(vm, TOP(), d) < 0) goto error;
        sp--;
        DISPATCH();
    }
    CASE(SETUP_ANNOTATIONS) {
        SYNC();
        DictObj *d = f->locals_dict ? f->locals_dict : f->globals;
        if (d->hdr.type == vm->t_dict) {
            if (val_is_null(dict_get_c(vm, d, "__annotations__"))) {
                DictObj *a = dict_new(vm);
                if (!a || dict_set_c(vm, d, "__annotations__", val_obj(a)) < 0) goto error;
            }
        } else {
            /* a class namespace from __prepare__: the mapping protocol */
            Value key = vm_intern(vm, "__annotations__");
            Value cur = vm_getitem(vm, val_obj(d), key);
            if (val_is_null(cur)) {
                if (!vm_exc_matches(vm, vm->e_KeyError)) goto error;
                vm_clear_exc(vm);
                DictObj *a = dict_new(vm);
                if (!a) goto error;
                PUSH(val_obj(a));
                SYNC();
                int rc = vm_setitem(vm, val_obj(d), key, val_obj(a));
                sp--;
                if (rc < 0) goto error;
            }
        }
        DISPATCH();
    }
    /* ---- specialised forms (opcodes.def note [13]); each guard failure is DEOPT ---------- */

#define BINOP_INT_FORMS(NAME, BUILTIN)                                                      \
    CASE(NAME) {                                                                            \
        Value a = PEEK(2), b = TOP();                                                       \
        int64_t r;                                                                          \
        if (a.tag != VAL_INT || b.tag != VAL_INT || BUILTIN(a.as.i, b.as.i, &r)) DEOPT(BINARY_OP); \
        sp--;                                                                               \
        SET_TOP(val_int(r));                                                                \
        DISPATCH();                                                                         \
    }                                                                                       \
    CASE(NAME##_STORE) {                                                                    \
        Value a = PEEK(2), b = TOP();                                                       \
        int64_t r;                                                                          \
        if (a.tag != VAL_INT || b.tag != VAL_INT || BUILTIN(a.as.i, b.as.i, &r)) DEOPT(BINARY_OP); \
        sp -= 2;                                                                            \
        VSET(locals[pc->arg], val_int(r));                                                  \
        pc++;                                                                               \
        DISPATCH();                                                                         \
    }
    BINOP_INT_FORMS(BINARY_OP_ADD_INT, __builtin_add_overflow)
    BINOP_INT_FORMS(BINARY_OP_SUB_INT, __builtin_sub_overflow)
    BINOP_INT_FORMS(BINARY_OP_MUL_INT, __builtin_mul_overflow)
#undef BINOP_INT_FORMS

/* float OP float, or one of them a small int converted as float's reflected operators do */
#define FLOAT_OPERANDS(x, y)                                                                \
    double x, y;                                                                            \
    if (a.tag == VAL_FLOAT && b.tag == VAL_FLOAT) {                                         \
        x = a.as.f;                                                                         \
        y = b.as.f;                                                                         \
    } else if (a.tag == VAL_FLOAT && b.tag == VAL_INT) {                                    \
        x = a.as.f;                                                                         \
        y = (double)b.as.i;                                                                 \
    } else if (a.tag == VAL_INT && b.tag == VAL_FLOAT) {                                    \
        x = (double)a.as.i;                                                                 \
        y = b.as.f;                                                                         \
    } else {                                                                                \
        DEOPT(BINARY_OP);                                                                   \
    }
#define BINOP_FLOAT_FORMS(NAME, OPERATOR)                                                   \
    CASE(NAME) {                                                                            \
        Value a = PEEK(2), b = TOP();                                                       \
        FLOAT_OPERANDS(x, y)                                                                \
        sp--;                                                                               \
        SET_TOP(val_float(x OPERATOR y));                                                   \
        DISPATCH();                                                                         \
    }                                                                                       \
    CASE(NAME##_STORE) {                                                                    \
        Value a = PEEK(2), b = TOP();                                                       \
        FLOAT_OPERANDS(x, y)                                                                \
        sp -= 2;                                                                            \
        VSET(locals[pc->arg], val_float(x OPERATOR y));                                     \
        pc++;                                                                               \
        DISPATCH();                                                                         \
    }
    BINOP_FLOAT_FORMS(BINARY_OP_ADD_FLOAT, +)
    BINOP_FLOAT_FORMS(BINARY_OP_SUB_FLOAT, -)
    BINOP_FLOAT_FORMS(BINARY_OP_MUL_FLOAT, *)
#undef BINOP_FLOAT_FORMS
#undef FLOAT_OPERANDS

    /* the pad byte holds the jump mask (vm/specialize.c): bit sign+1 set means jump */
    CASE(COMPARE_OP_INT_JUMP) {
        Value a = PEEK(2), b = TOP();
        if (a.tag != VAL_INT || b.tag != VAL_INT) DEOPT(COMPARE_OP);
        int sign = (a.as.i > b.as.i) - (a.as.i < b.as.i);
        sp -= 2;
        if ((pc[-1]._pad >> (sign + 1)) & 1) {
            FUEL(pc->arg);
            pc = code + pc->arg;
        } else {
            pc++;
        }
        DISPATCH();
    }
    CASE(COMPARE_OP_FLOAT_JUMP) {
        Value a = PEEK(2), b = TOP();
        if (a.tag != VAL_FLOAT || b.tag != VAL_FLOAT) DEOPT(COMPARE_OP);
        int sign = (a.as.f > b.as.f) - (a.as.f < b.as.f);
        if (sign == 0 && a.as.f != b.as.f) DEOPT(COMPARE_OP);   /* a NaN: every order is false */
        sp -= 2;
        if ((pc[-1]._pad >> (sign + 1)) & 1) {
            FUEL(pc->arg);
            pc = code + pc->arg;
        } else {
            pc++;
        }
        DISPATCH();
    }

    /* superinstruction + specialised operation: pc[0] is the superinstruction's second slot,
     * pc[1] the BINARY_OP / COMPARE_OP, pc[2] the STORE_FAST / conditional jump */
#define FAST_CONST_FORMS(NAME, TAG, CTOR, EXPR)                                             \
    CASE(NAME) {                                                                            \
        Value a = locals[oparg & 0xFFFF];                                                   \
        if (a.tag != TAG) DEOPT(LOAD_FAST_LOAD_CONST);                                      \
        Value b = CONST(oparg >> 16);                                                       \
        CTOR;                                                                               \
        PUSH(r);                                                                            \
        pc += 2;                                                                            \
        DISPATCH();                                                                         \
    }                                                                                       \
    CASE(NAME##_STORE) {                                                                    \
        Value a = locals[oparg & 0xFFFF];                                                   \
        if (a.tag != TAG) DEOPT(LOAD_FAST_LOAD_CONST);                                      \
        Value b = CONST(oparg >> 16);                                                       \
        CTOR;                                                                               \
        VSET(locals[pc[2].arg], r);                                                         \
        pc += 3;                                                                            \
        DISPATCH();                                                                         \
    }
#define INT_R(BUILTIN)                                                                      \
    int64_t ri;                                                                             \
    if (BUILTIN(a.as.i, b.as.i, &ri)) DEOPT(LOAD_FAST_LOAD_CONST);                          \
    Value r = val_int(ri)
    FAST_CONST_FORMS(LOAD_FAST_CONST_ADD_INT, VAL_INT, INT_R(__builtin_add_overflow), )
    FAST_CONST_FORMS(LOAD_FAST_CONST_SUB_INT, VAL_INT, INT_R(__builtin_sub_overflow), )
    CASE(LOAD_FAST_CONST_MUL_INT_STORE) {
        Value a = locals[oparg & 0xFFFF];
        if (a.tag != VAL_INT) DEOPT(LOAD_FAST_LOAD_CONST);
        Value b = CONST(oparg >> 16);
        INT_R(__builtin_mul_overflow);
        VSET(locals[pc[2].arg], r);
        pc += 3;
        DISPATCH();
    }
#undef INT_R
#undef FAST_CONST_FORMS
#define FAST_CONST_FLOAT_STORE(NAME, OPERATOR)                                              \
    CASE(NAME) {                                                                            \
        Value a = locals[oparg & 0xFFFF];                                                   \
        if (a.tag != VAL_FLOAT) DEOPT(LOAD_FAST_LOAD_CONST);                                \
        VSET(locals[pc[2].arg], val_float(a.as.f OPERATOR CONST(oparg >> 16).as.f));       \
        pc += 3;                                                                            \
        DISPATCH();                                                                         \
    }
    FAST_CONST_FLOAT_STORE(LOAD_FAST_CONST_ADD_FLOAT_STORE, +)
    FAST_CONST_FLOAT_STORE(LOAD_FAST_CONST_SUB_FLOAT_STORE, -)
    FAST_CONST_FLOAT_STORE(LOAD_FAST_CONST_MUL_FLOAT_STORE, *)
#undef FAST_CONST_FLOAT_STORE
    CASE(LOAD_FAST_FAST_COMPARE_INT_JUMP) {
        Value a = locals[oparg & 0xFFFF], b = locals[oparg >> 16];
        if (a.tag != VAL_INT || b.tag != VAL_INT) DEOPT(LOAD_FAST_LOAD_FAST);
        int sign = (a.as.i > b.as.i) - (a.as.i < b.as.i);
        if ((pc[-1]._pad >> (sign + 1)) & 1) {
            FUEL(pc[2].arg);
            pc = code + pc[2].arg;
        } else {
            pc += 3;
        }
        DISPATCH();
    }
    CASE(LOAD_FAST_CONST_COMPARE_INT_JUMP) {
        Value a = locals[oparg & 0xFFFF];
        if (a.tag != VAL_INT) DEOPT(LOAD_FAST_LOAD_CONST);
        int64_t b = CONST(oparg >> 16).as.i;
        int sign = (a.as.i > b) - (a.as.i < b);
        if ((pc[-1]._pad >> (sign + 1)) & 1) {
            FUEL(pc[2].arg);
            pc = code + pc[2].arg;
        } else {
            pc += 3;
        }
        DISPATCH();
    }

    /* FOR_ITER over a range or list iterator, storing into the STORE_FAST after it */
    CASE(FOR_ITER_RANGE_STORE) {
        Value it = TOP();
        if (it.tag != VAL_OBJ || it.as.o->type->layout != OBJ_LAYOUT_ITER ||
            ((IterObj *)it.as.o)->next != range_iter_next)
            DEOPT(FOR_ITER);
        IterObj *io = (IterObj *)it.as.o;
        if (io->n > 0) {
            VSET(locals[pc->arg], val_int(io->i));
            io->i += io->b.as.i;
            io->n--;
            pc++;
            DISPATCH();
        }
        sp--;
        pc = code + oparg;
        DISPATCH();
    }
    CASE(FOR_ITER_LIST_STORE) {
        Value it = TOP();
        if (it.tag != VAL_OBJ || it.as.o->type->layout != OBJ_LAYOUT_ITER ||
            ((IterObj *)it.as.o)->next != list_iter_next)
            DEOPT(FOR_ITER);
        IterObj *io = (IterObj *)it.as.o;
        ListObj *l = AS_LIST(io->a);
        if (io->i < l->len) {
            VSET(locals[pc->arg], l->items[io->i++]);
            pc++;
            DISPATCH();
        }
        io->i = INT64_MAX;
        sp--;
        pc = code + oparg;
        DISPATCH();
    }

    /* CALL of a function whose positional parameters the arguments fill exactly (the code's
     * exact_argc): the frame is pushed and filled here, without call_bind_args */
    CASE(CALL_PY_EXACT_ARGS) {
        int n = (int)oparg;
        Value first = PEEK(n + 2);
        int method = !val_is_null(first);
        Value callable = method ? first : PEEK(n + 1);
        if (callable.tag != VAL_OBJ || callable.as.o->type != vm->t_function ||
            vm->eval_frame != vm_eval_frame_default)
            DEOPT(CALL);
        FunctionObj *fn = (FunctionObj *)callable.as.o;
        CodeObj *co = fn->code;
        int argc = n + method;
        if (co->exact_argc != argc) DEOPT(CALL);
        size_t need = (size_t)co->nlocalsplus + (size_t)co->stacksize;
        /* too deep or no room: the base form raises RecursionError */
        if (vm->depth >= vm->recursion_limit || vm->stack_top + need > vm->stack_limit) DEOPT(CALL);
        SYNC();
        Value *args = sp - argc;
        Frame *nf = &vm->frame_pool[vm->depth];
        Value *lp = vm->stack_top;
        nf->code = co;
        nf->func = (Obj *)fn;
        nf->globals = fn->globals;
        nf->locals_dict = NULL;
        nf->localsplus = lp;
        {
            Value *dst = lp, *src = args, *end = lp + argc, *lend = lp + co->nlocalsplus;
            while (dst < end) {
                VSET(*dst, *src);
                dst++;
                src++;
            }
            while (dst < lend) *dst++ = val_null();
        }
        nf->stack = nf->sp = lp + co->nlocalsplus;
        nf->ip = 0;
        nf->prev = f;
        nf->is_entry = false;
        vm->stack_top = nf->stack + co->stacksize;
        vm->depth++;
        f->sp = sp - n - 2;
        f = nf;
        vm->frame = f;
        code = co->qcode;
        consts = co->consts->items;
        locals = lp;
        sp = nf->sp;
        pc = code;
        if (pc->op == OP_COPY_FREE_VARS) {
            /* a closure: its first instruction done here */
            Value *cells = fn->closure->items, *dst = lp + co->nlocals + co->cellvars->len;
            for (uint32_t i = 0; i < pc->arg; i++) dst[i] = cells[i];
            pc++;
        }
        DISPATCH();
    }

    /* CALL of a native function or method descriptor whose checks spec_native_ok makes: they
     * are redone here (no cache: the callable may differ on each call) */
    CASE(CALL_NATIVE) {
        int n = (int)oparg;
        Value first = PEEK(n + 2);
        int method = !val_is_null(first);
        Value callable = method ? first : PEEK(n + 1);
        Value *args = sp - n - method;
        if (callable.tag != VAL_OBJ || callable.as.o->type->layout != OBJ_LAYOUT_NATIVE ||
            !spec_native_ok(vm, (NativeObj *)callable.as.o, n + method, args))
            DEOPT(CALL);
        SYNC();
        NativeObj *nat = (NativeObj *)callable.as.o;
        if (vm_check_recursion(vm, " while calling a Python object") < 0) goto error;
        Value r = nat->fn(vm, n + method, args, NULL, nat);
        vm_leave_recursion(vm);
        if (val_is_null(r)) goto error;
        sp -= n + 2;
        PUSH(r);
        DISPATCH();
    }

    CASE(SETUP_FINALLY)
    CASE(SETUP_CLEANUP)
    CASE(SETUP_WITH)
    CASE(POP_BLOCK) {
        EM_UNREACHABLE();
    }

#ifndef USE_GOTO
    default: EM_UNREACHABLE();
    }
#endif

error:
    /* vm->exc is set; f->ip is the raising instruction */
    if (exc_add_traceback(vm, vm->exc, f) < 0) {
        /* out of memory while recording the traceback: keep unwinding with MemoryError */
    }
unwind:;
    {
        const ExcEntry *h = code_find_handler(f->code, f->ip);
        if (h) {
            sp = f->stack + h->depth;
            PUSH(vm->exc);
            vm->exc = val_null();
            pc = code + h->handler;
            DISPATCH();
        }
    }
    /* no handler: leave the frame */
    if (f->is_entry) {
        vm->frame = f->prev;
        frame_pop(vm, f);
        return val_null();
    }
    {
        Frame *caller = f->prev;
        frame_pop(vm, f);
        f = caller;
        vm->frame = f;
        LOAD_REGS();
        goto error;
    }
}
