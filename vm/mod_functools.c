/* vm/mod_functools.c — the `_functools` module (CPython 3.11's Modules/_functoolsmodule.c):
 * reduce, partial (flattening nested partials, keywords merged at call time, CPython's
 * repr), cmp_to_key's KeyWrapper, and _lru_cache_wrapper (unbounded, bounded LRU and
 * uncached variants with cache_info/cache_clear, a method-binding descriptor).
 * functools.py imports them over its pure-Python fallbacks. */
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/mod_functools.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- reduce --------------------------------------------------------------------------- */

static Value ft_reduce(ARGS) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "reduce() takes no keyword arguments");
    if (argc < 2) return vm_raise(vm, vm->e_TypeError, "reduce expected at least 2 arguments, got %d", argc);
    if (argc > 3) return vm_raise(vm, vm->e_TypeError, "reduce expected at most 3 arguments, got %d", argc);
    Value it = vm_iter(vm, argv[1]);
    if (val_is_null(it)) {
        if (vm_exc_matches(vm, vm->e_TypeError)) {
            vm_clear_exc(vm);
            return vm_raise(vm, vm->e_TypeError, "reduce() arg 2 must support iteration");
        }
        return it;
    }
    vm_push_root(vm, it);
    Value acc = argc == 3 ? argv[2] : val_null();
    vm_push_root(vm, acc);
    for (;;) {
        Value x = vm_next(vm, it);
        if (val_is_null(x)) {
            vm_pop_roots(vm, 2);
            if (!val_is_null(vm->exc)) return x;
            if (val_is_null(acc))
                return vm_raise(vm, vm->e_TypeError, "reduce() of empty iterable with no initial value");
            return acc;
        }
        if (val_is_null(acc)) {
            acc = x;
        } else {
            vm_push_root(vm, x);
            acc = vm_call2(vm, argv[0], acc, x);
            vm_pop_root(vm);
            if (val_is_null(acc)) {
                vm_pop_roots(vm, 2);
                return acc;
            }
        }
        vm->roots.v[vm->roots.n - 1] = acc;
    }
}

/* ---- partial -------------------------------------------------------------------------- */

typedef struct PartialObj {
    Obj hdr;
    Value fn;
    TupleObj *args;
    DictObj *kw;
    DictObj *dict;
} PartialObj;

static void partial_trace(VM *vm, Obj *o) {
    PartialObj *p = (PartialObj *)o;
    gc_mark_value(vm, p->fn);
    gc_mark(vm, p->args);
    gc_mark(vm, p->kw);
    gc_mark(vm, p->dict);
}

static Value partial_call(ARGS);

bool functools_is_partial_type(const TypeObj *t) { return t->trace == partial_trace && !(t->flags & TYPEF_HEAPTYPE); }

bool functools_partial_parts(Value v, Value *fn, TupleObj **args, DictObj **kw) {
    if (v.tag != VAL_OBJ || !functools_is_partial_type(v.as.o->type)) return false;
    PartialObj *p = (PartialObj *)v.as.o;
    if (p->dict && p->dict->used) return false;
    *fn = p->fn;
    *args = p->args;
    *kw = p->kw;
    return true;
}

static Value partial_new(ARGS) {
    if (argc < 2) return vm_raise(vm, vm->e_TypeError, "type 'partial' takes at least one argument");
    Value func = argv[1];
    Value *pargs = argv + 2;
    int npargs = argc - 2;
    DictObj *inner_kw = NULL;
    TupleObj *inner_args = NULL;
    /* a partial of a plain partial (no instance attributes) is flattened into one */
    if (func.tag == VAL_OBJ && func.as.o->type->trace == partial_trace) {
        PartialObj *inner = (PartialObj *)func.as.o;
        Value call = type_special(vm, func.as.o->type, SP_CALL);
        bool plain_call = call.tag == VAL_OBJ && call.as.o->type->layout == OBJ_LAYOUT_NATIVE &&
                          ((NativeObj *)call.as.o)->fn == partial_call;
        if (plain_call && (!inner->dict || inner->dict->used == 0)) {
            inner_args = inner->args;
            inner_kw = inner->kw;
            func = inner->fn;
        }
    }
    if (!vm_is_callable(vm, func)) return vm_raise(vm, vm->e_TypeError, "the first argument must be callable");
    vm_push_root(vm, func);
    int64_t nin = inner_args ? inner_args->len : 0;
    TupleObj *args = tuple_new(vm, nin + npargs);
    if (!args) goto fail1;
    if (nin) memcpy(args->items, inner_args->items, sizeof(Value) * (size_t)nin);
    if (npargs) memcpy(args->items + nin, pargs, sizeof(Value) * (size_t)npargs);
    vm_push_root(vm, val_obj(args));
    DictObj *kwd = inner_kw ? dict_copy(vm, inner_kw) : dict_new(vm);
    if (!kwd) goto fail2;
    vm_push_root(vm, val_obj(kwd));
    for (int64_t k = 0; kw && k < kw->len; k++)
        if (dict_set(vm, kwd, kw->items[k], argv[argc + k]) < 0) goto fail3;
    PartialObj *p = gc_alloc(vm, AS_TYPE(argv[0]), AS_TYPE(argv[0])->instance_size);
    if (!p) goto fail3;
    p->fn = func;
    p->args = args;
    p->kw = kwd;
    vm_pop_roots(vm, 3);
    return val_obj(p);
fail3:
    vm_pop_root(vm);
fail2:
    vm_pop_root(vm);
fail1:
    vm_pop_root(vm);
    return val_null();
}

static Value partial_call(ARGS) {
    PartialObj *p = (PartialObj *)argv[0].as.o;
    int nargs = argc - 1, nkw = kw ? (int)kw->len : 0;
    int64_t npre = p->args->len;
    if (p->kw->used == 0) {
        /* no stored keywords: one argument vector, the call's keywords passed through */
        int total = (int)npre + nargs + nkw;
        Value small[16];
        Value *buf = total <= 16 ? small : VM_ALLOC_ARRAY(vm, Value, total);
        if (!buf) return val_null();
        memcpy(buf, p->args->items, sizeof(Value) * (size_t)npre);
        memcpy(buf + npre, argv + 1, sizeof(Value) * (size_t)(nargs + nkw));
        Value r = vm_call(vm, p->fn, (int)npre + nargs, buf, kw);
        if (buf != small) VM_FREE_ARRAY(vm, Value, buf, total);
        return r;
    }
    /* stored keywords, overridden by the call's */
    TupleObj *args = tuple_new(vm, npre + nargs);
    if (!args) return val_null();
    memcpy(args->items, p->args->items, sizeof(Value) * (size_t)npre);
    memcpy(args->items + npre, argv + 1, sizeof(Value) * (size_t)nargs);
    vm_push_root(vm, val_obj(args));
    DictObj *kwd = dict_copy(vm, p->kw);
    if (!kwd) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(kwd));
    for (int k = 0; k < nkw; k++)
        if (dict_set(vm, kwd, kw->items[k], argv[argc + k]) < 0) {
            vm_pop_roots(vm, 2);
            return val_null();
        }
    Value r = vm_call_ex(vm, p->fn, val_obj(args), val_obj(kwd));
    vm_pop_roots(vm, 2);
    return r;
}

static Value partial_repr(ARGS) {
    PartialObj *p = (PartialObj *)argv[0].as.o;
    int rec = repr_enter(vm, &p->hdr);
    if (rec < 0) return val_null();
    if (rec) return vm_intern(vm, "...");
    StrBuf b;
    sb_init(&b);
    TypeObj *t = p->hdr.type;
    if (t->flags & TYPEF_HEAPTYPE) sb_add_str(&b, t->name);
    else sb_adds(&b, "functools.partial");
    sb_addc(&b, '(');
    Value r = vm_repr(vm, p->fn);
    if (val_is_null(r)) goto fail;
    sb_add_str(&b, AS_STR(r));
    for (int64_t i = 0; i < p->args->len; i++) {
        r = vm_repr(vm, p->args->items[i]);
        if (val_is_null(r)) goto fail;
        sb_adds(&b, ", ");
        sb_add_str(&b, AS_STR(r));
    }
    int64_t pos = 0;
    Value k, v;
    while (dict_next(p->kw, &pos, &k, &v)) {
        Value ks = vm_str(vm, k);
        if (val_is_null(ks)) goto fail;
        vm_push_root(vm, ks);
        r = vm_repr(vm, v);
        vm_pop_root(vm);
        if (val_is_null(r)) goto fail;
        sb_adds(&b, ", ");
        sb_add_str(&b, AS_STR(ks));
        sb_addc(&b, '=');
        sb_add_str(&b, AS_STR(r));
    }
    sb_addc(&b, ')');
    repr_leave(vm, &p->hdr);
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
fail:
    repr_leave(vm, &p->hdr);
    sb_free(&b);
    return val_null();
}

static Value partial_get_func(VM *vm, Value s, void *c) { return ((PartialObj *)s.as.o)->fn; }
static Value partial_get_args(VM *vm, Value s, void *c) { return val_obj(((PartialObj *)s.as.o)->args); }
static Value partial_get_keywords(VM *vm, Value s, void *c) { return val_obj(((PartialObj *)s.as.o)->kw); }
static Value class_getitem(ARGS) { return argv[0]; }

/* ---- cmp_to_key ----------------------------------------------------------------------- */

typedef struct KeyObj {
    Obj hdr;
    Value cmp;
    Value obj;    /* VAL_NULL for the wrapper cmp_to_key returns */
} KeyObj;

static void key_trace(VM *vm, Obj *o) {
    gc_mark_value(vm, ((KeyObj *)o)->cmp);
    gc_mark_value(vm, ((KeyObj *)o)->obj);
}

static Value key_make(VM *vm, TypeObj *t, Value cmp, Value obj) {
    vm_push_root(vm, cmp);
    vm_push_root(vm, obj);
    KeyObj *k = gc_alloc(vm, t, sizeof(KeyObj));
    vm_pop_roots(vm, 2);
    if (!k) return val_null();
    k->cmp = cmp;
    k->obj = obj;
    return val_obj(k);
}

static Value key_call(ARGS) {
    static const char *const names[] = {"self", "obj"};
    Value a[2];
    if (native_parse_args(vm, "K", argc, argv, kw, 2, 2, names, 2, a) < 0) return val_null();
    KeyObj *k = (KeyObj *)argv[0].as.o;
    return key_make(vm, k->hdr.type, k->cmp, a[1]);
}

/* fn->data: CompareOp */
static Value key_compare(ARGS) {
    if (native_check_args(vm, "comparison", argc, kw, 2, 2) < 0) return val_null();
    KeyObj *a = (KeyObj *)argv[0].as.o;
    if (argv[1].tag != VAL_OBJ || argv[1].as.o->type != a->hdr.type)
        return vm_raise(vm, vm->e_TypeError, "other argument must be K instance");
    KeyObj *b = (KeyObj *)argv[1].as.o;
    if (val_is_null(a->obj) || val_is_null(b->obj)) return vm_raise(vm, vm->e_AttributeError, "object");
    Value r = vm_call2(vm, a->cmp, a->obj, b->obj);
    if (val_is_null(r)) return r;
    return vm_compare(vm, (CompareOp)(intptr_t)fn->data, r, val_int(0));
}

static Value key_get_obj(VM *vm, Value s, void *c) {
    KeyObj *k = (KeyObj *)s.as.o;
    if (val_is_null(k->obj)) return vm_raise(vm, vm->e_AttributeError, "obj");
    return k->obj;
}

static Value ft_cmp_to_key(ARGS) {
    static const char *const names[] = {"mycmp"};
    Value a[1];
    if (native_parse_args(vm, "cmp_to_key", argc, argv, kw, 1, 1, names, 1, a) < 0) return val_null();
    return key_make(vm, AS_TYPE(fn->payload), a[0], val_null());
}

/* ---- _lru_cache_wrapper --------------------------------------------------------------- */

typedef struct LruObj {
    Obj hdr;
    Value func;
    DictObj *cache;     /* key -> result; insertion order is recency (oldest first) */
    Value info_type;    /* the CacheInfo named tuple type */
    Value kwd_mark;     /* separates positional from keyword parts of a key */
    int64_t maxsize;    /* -1: unbounded */
    int64_t hits, misses;
    bool typed;
    DictObj *dict;
} LruObj;

static void lru_trace(VM *vm, Obj *o) {
    LruObj *l = (LruObj *)o;
    gc_mark_value(vm, l->func);
    gc_mark(vm, l->cache);
    gc_mark_value(vm, l->info_type);
    gc_mark_value(vm, l->kwd_mark);
    gc_mark(vm, l->dict);
}

/* CPython's lru_cache_make_key: a lone str/int argument is its own key, else a tuple of the
 * arguments, the keyword mark and flattened keyword items, and the types when typed. */
static Value lru_make_key(VM *vm, LruObj *l, int nargs, Value *args, TupleObj *kw) {
    int nkw = kw ? (int)kw->len : 0;
    if (!l->typed && !nkw) {
        if (nargs == 1 && args[0].tag == VAL_INT) return args[0];
        if (nargs == 1 && args[0].tag == VAL_OBJ && args[0].as.o->type == vm->t_str) return args[0];
        TupleObj *t = tuple_from_array(vm, args, nargs);
        return t ? val_obj(t) : val_null();
    }
    int64_t n = nargs + (nkw ? 1 + 2 * nkw : 0) + (l->typed ? nargs + nkw : 0);
    TupleObj *t = tuple_new(vm, n);
    if (!t) return val_null();
    int64_t j = 0;
    for (int i = 0; i < nargs; i++) t->items[j++] = args[i];
    if (nkw) {
        t->items[j++] = l->kwd_mark;
        for (int k = 0; k < nkw; k++) {
            t->items[j++] = kw->items[k];
            t->items[j++] = args[nargs + k];
        }
    }
    if (l->typed) {
        for (int i = 0; i < nargs; i++) t->items[j++] = val_obj(vm_type_of(vm, args[i]));
        for (int k = 0; k < nkw; k++) t->items[j++] = val_obj(vm_type_of(vm, args[nargs + k]));
    }
    return val_obj(t);
}

static Value lru_call(ARGS) {
    LruObj *l = (LruObj *)argv[0].as.o;
    int nargs = argc - 1;
    if (l->maxsize == 0) {
        l->misses++;
        return vm_call(vm, l->func, nargs, argv + 1, kw);
    }
    Value key = lru_make_key(vm, l, nargs, argv + 1, kw);
    if (val_is_null(key)) return key;
    vm_push_root(vm, key);
    Value cached;
    int found = dict_lookup(vm, l->cache, key, &cached);
    if (found < 0) goto fail;
    if (found) {
        l->hits++;
        if (l->maxsize > 0) {
            /* move to the most recent end */
            vm_push_root(vm, cached);
            int rc = dict_del(vm, l->cache, key, NULL) < 0 || dict_set(vm, l->cache, key, cached) < 0;
            vm_pop_root(vm);
            if (rc) goto fail;
        }
        vm_pop_root(vm);
        return cached;
    }
    l->misses++;
    Value result = vm_call(vm, l->func, nargs, argv + 1, kw);
    if (val_is_null(result)) goto fail;
    vm_push_root(vm, result);
    /* the call may have cached this key itself (recursion): keep that entry */
    Value again;
    found = dict_lookup(vm, l->cache, key, &again);
    if (found < 0) goto fail2;
    if (!found) {
        if (l->maxsize > 0 && l->cache->used >= l->maxsize) {
            int64_t pos = 0;
            Value ok, ov;
            if (dict_next(l->cache, &pos, &ok, &ov) && dict_del(vm, l->cache, ok, NULL) < 0) goto fail2;
        }
        if (dict_set(vm, l->cache, key, result) < 0) goto fail2;
    }
    vm_pop_roots(vm, 2);
    return result;
fail2:
    vm_pop_root(vm);
fail:
    vm_pop_root(vm);
    return val_null();
}

static Value lru_new(ARGS) {
    static const char *const names[] = {"user_function", "maxsize", "typed", "cache_info_type"};
    Value a[4];
    if (native_parse_args(vm, "_lru_cache_wrapper", argc - 1, argv + 1, kw, 4, 4, names, 4, a) < 0) return val_null();
    if (!vm_is_callable(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "the first argument must be callable");
    int64_t maxsize;
    if (val_is_none(a[1])) {
        maxsize = -1;
    } else if (val_is_intlike(a[1])) {
        maxsize = val_as_intlike(a[1]);
        if (maxsize < 0) maxsize = 0;
    } else {
        return vm_raise(vm, vm->e_TypeError, "maxsize should be integer or None");
    }
    int typed = vm_truthy(vm, a[2]);
    if (typed < 0) return val_null();
    DictObj *cache = dict_new(vm);
    if (!cache) return val_null();
    vm_push_root(vm, val_obj(cache));
    LruObj *l = gc_alloc(vm, AS_TYPE(argv[0]), AS_TYPE(argv[0])->instance_size);
    vm_pop_root(vm);
    if (!l) return val_null();
    l->func = a[0];
    l->cache = cache;
    l->info_type = a[3];
    l->kwd_mark = fn->payload;
    l->maxsize = maxsize;
    l->typed = typed;
    return val_obj(l);
}

static Value lru_cache_info(ARGS) {
    LruObj *l = (LruObj *)argv[0].as.o;
    Value args[4] = {val_int(l->hits), val_int(l->misses), l->maxsize < 0 ? val_none() : val_int(l->maxsize),
                     val_int(l->cache->used)};
    return vm_call(vm, l->info_type, 4, args, NULL);
}

static Value lru_cache_clear(ARGS) {
    LruObj *l = (LruObj *)argv[0].as.o;
    l->hits = l->misses = 0;
    dict_clear(vm, l->cache);
    return val_none();
}

static Value lru_get(ARGS) {
    if (argc < 2 || val_is_none(argv[1]) || val_is_null(argv[1])) return argv[0];
    return vm_bound_method_new(vm, argv[0], argv[1]);
}

static Value lru_repr(ARGS) {
    LruObj *l = (LruObj *)argv[0].as.o;
    Value r = vm_repr(vm, l->func);
    if (val_is_null(r)) return r;
    StrObj *s = str_printf(vm, "<functools._lru_cache_wrapper object wrapping %s>", AS_STR(r)->data);
    return s ? val_obj(s) : val_null();
}

static Value self_fn(ARGS) { return argv[0]; }

/* ---- module --------------------------------------------------------------------------- */

int functools_module_init(VM *vm, Value mod) {
    TypeObj *tp = type_new_builtin(vm, "partial", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(PartialObj),
                                   offsetof(PartialObj, dict), partial_trace, NULL, TYPEF_BASETYPE);
    if (!tp) return -1;
    vm_push_root(vm, val_obj(tp));
    TypeObj *tk = type_new_builtin(vm, "KeyWrapper", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(KeyObj), 0,
                                   key_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!tk) goto fail1;
    vm_push_root(vm, val_obj(tk));
    TypeObj *tl = type_new_builtin(vm, "_lru_cache_wrapper", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(LruObj),
                                   offsetof(LruObj, dict), lru_trace, NULL, 0);
    if (!tl) goto fail2;
    vm_push_root(vm, val_obj(tl));
    tp->module = tk->module = tl->module = vm_intern(vm, "functools");
    static const MethodDef pm[] = {
        {"__new__", partial_new, NATIVEF_STATIC}, {"__call__", partial_call, NATIVEF_METHOD},
        {"__repr__", partial_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__class_getitem__", class_getitem, NATIVEF_CLASSMETHOD | ARITY_O}, {NULL}};
    static const GetSetDef pg[] = {
        {"func", partial_get_func}, {"args", partial_get_args}, {"keywords", partial_get_keywords}, {NULL}};
#define KC(n, op) {n, key_compare, NATIVEF_METHOD, (void *)(intptr_t)(op)}
    static const MethodDef km[] = {
        {"__call__", key_call, NATIVEF_METHOD}, KC("__lt__", CMP_LT), KC("__le__", CMP_LE), KC("__eq__", CMP_EQ),
        KC("__ne__", CMP_NE), KC("__gt__", CMP_GT), KC("__ge__", CMP_GE), {NULL}};
#undef KC
    static const GetSetDef kg[] = {{"obj", key_get_obj}, {NULL}};
    static const MethodDef lm[] = {
        {"__new__", lru_new, NATIVEF_STATIC}, {"__call__", lru_call, NATIVEF_METHOD},
        {"__get__", lru_get, NATIVEF_METHOD | ARITY_POS(1, 2)}, {"__repr__", lru_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"cache_info", lru_cache_info, NATIVEF_METHOD | ARITY_NOARGS},
        {"cache_clear", lru_cache_clear, NATIVEF_METHOD | ARITY_NOARGS},
        {"__copy__", self_fn, NATIVEF_METHOD | ARITY_NOARGS}, {"__deepcopy__", self_fn, NATIVEF_METHOD | ARITY_O},
        {NULL}};
    if (type_add_methods(vm, tp, pm) < 0 || type_add_getsets(vm, tp, pg) < 0 || type_add_methods(vm, tk, km) < 0 ||
        type_add_getsets(vm, tk, kg) < 0 || type_add_methods(vm, tl, lm) < 0 ||
        dict_set_c(vm, tk->dict, "__hash__", val_none()) < 0)
        goto fail3;
    type_modified(vm, tk);
    /* _lru_cache_wrapper.__new__ closes over the keyword mark, cmp_to_key over KeyWrapper */
    Value lnew = dict_get_c(vm, tl->dict, "__new__");
    Value mark = val_obj(gc_alloc(vm, vm->t_object, sizeof(InstanceObj)));
    if (val_is_null(lnew) || !mark.as.o) goto fail3;
    ((NativeObj *)lnew.as.o)->payload = mark;
    NativeObj *ck = native_new_closure(vm, "cmp_to_key", ft_cmp_to_key, val_obj(tk));
    if (!ck || module_set(vm, mod, "cmp_to_key", val_obj(ck)) < 0) goto fail3;
    static const MethodDef fns[] = {{"reduce", ft_reduce}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0 || module_set(vm, mod, "partial", val_obj(tp)) < 0 ||
        module_set(vm, mod, "_lru_cache_wrapper", val_obj(tl)) < 0)
        goto fail3;
    vm_pop_roots(vm, 3);
    return 0;
fail3:
    vm_pop_root(vm);
fail2:
    vm_pop_root(vm);
fail1:
    vm_pop_root(vm);
    return -1;
}
