/* vm/builtins.c — the builtins module: print, len, min/max/sum/sorted, isinstance and friends,
 * attribute helpers, numeric helpers (abs, round, divmod, pow, hex...), __build_class__ and
 * __import__, and the binding of the built-in types and exceptions under their names. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/call.h"
#include "vm/dict.h"
#include "vm/frame.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/mod_io.h"
#include "vm/mod_sys.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- output --------------------------------------------------------------------------------- */

int vm_write_stream(VM *vm, Value stream, FILE *fallback, StrObj *s) {
    if (val_is_null(stream) || val_is_none(stream)) {
        fwrite(s->data, 1, (size_t)s->len, fallback);
        return 0;
    }
    Value arg = val_obj(s);
    Value r = vm_call_method(vm, stream, "write", 1, &arg);
    return val_is_null(r) ? -1 : 0;
}

static Value b_print(ARGS) {
    Value sep = val_null(), end = val_null(), file = val_null(), flush = val_null();
    for (int64_t k = 0; kw && k < kw->len; k++) {
        StrObj *n = AS_STR(kw->items[k]);
        Value v = argv[argc + k];
        if (str_eq_c(n, "sep")) sep = v;
        else if (str_eq_c(n, "end")) end = v;
        else if (str_eq_c(n, "file")) file = v;
        else if (str_eq_c(n, "flush")) flush = v;
        else return vm_raise(vm, vm->e_TypeError, "'%s' is an invalid keyword argument for print()", n->data);
    }
    if (!val_is_null(sep) && !val_is_none(sep) && !val_is_str(vm, sep))
        return vm_raise(vm, vm->e_TypeError, "sep must be None or a string, not %s", vm_type_name(vm, sep));
    if (!val_is_null(end) && !val_is_none(end) && !val_is_str(vm, end))
        return vm_raise(vm, vm->e_TypeError, "end must be None or a string, not %s", vm_type_name(vm, end));
    Value stream = val_is_null(file) || val_is_none(file) ? vm_current_stdout(vm) : file;
    if (val_is_none(stream)) return val_none();
    if (io_text_write_fast(vm, stream, "", 0) == 1) {
        /* a standard stream: build the line in C and write it once */
        StrBuf b;
        sb_init(&b);
        for (int i = 0; i < argc; i++) {
            if (i) {
                if (val_is_null(sep) || val_is_none(sep)) sb_addc(&b, ' ');
                else sb_add_str(&b, AS_STR(sep));
            }
            Value s = vm_str(vm, argv[i]);
            if (val_is_null(s)) {
                sb_free(&b);
                return s;
            }
            sb_add_str(&b, AS_STR(s));
        }
        if (val_is_null(end) || val_is_none(end)) sb_addc(&b, '\n');
        else sb_add_str(&b, AS_STR(end));
        vm_push_root(vm, stream);
        int rc = io_text_write_fast(vm, stream, b.data, b.len);
        if (rc == 0) {
            /* the text needs the codec's error handling: the stream's own write */
            StrObj *line = str_new(vm, b.data, b.len);
            rc = line && !val_is_null(vm_call_method(vm, stream, "write", 1, (Value[]){val_obj(line)})) ? 1 : -1;
        }
        sb_free(&b);
        if (rc > 0 && !val_is_null(flush) && vm_truthy(vm, flush) > 0 &&
            val_is_null(vm_call_method(vm, stream, "flush", 0, NULL)))
            rc = -1;
        vm_pop_root(vm);
        return rc < 0 ? val_null() : val_none();
    }
    FILE *out = vm->out;
    vm_push_root(vm, stream);
    for (int i = 0; i < argc; i++) {
        if (i) {
            StrObj *sp = val_is_null(sep) || val_is_none(sep) ? vm->s_cache[' '] : AS_STR(sep);
            if (vm_write_stream(vm, stream, out, sp) < 0) goto fail;
        }
        Value s = vm_str(vm, argv[i]);
        if (val_is_null(s) || vm_write_stream(vm, stream, out, AS_STR(s)) < 0) goto fail;
    }
    {
        StrObj *e = val_is_null(end) || val_is_none(end) ? vm->s_cache['\n'] : AS_STR(end);
        if (vm_write_stream(vm, stream, out, e) < 0) goto fail;
    }
    if (!val_is_null(flush) && vm_truthy(vm, flush) > 0 && val_is_null(vm_call_method(vm, stream, "flush", 0, NULL)))
        goto fail;
    vm_pop_root(vm);
    return val_none();
fail:
    vm_pop_root(vm);
    return val_null();
}

/* ---- inspection ------------------------------------------------------------------------------ */

static Value b_len(ARGS) {
    if (native_check_args(vm, "len", argc, kw, 1, 1) < 0) return val_null();
    int64_t n = vm_len(vm, argv[0]);
    return n < 0 ? val_null() : val_int(n);
}

static Value b_isinstance(ARGS) {
    if (native_check_args(vm, "isinstance", argc, kw, 2, 2) < 0) return val_null();
    int r = vm_isinstance(vm, argv[0], argv[1]);
    return r < 0 ? val_null() : val_bool(r);
}

static Value b_issubclass(ARGS) {
    if (native_check_args(vm, "issubclass", argc, kw, 2, 2) < 0) return val_null();
    int r = vm_issubclass(vm, argv[0], argv[1]);
    return r < 0 ? val_null() : val_bool(r);
}

static Value b_id(ARGS) {
    if (native_check_args(vm, "id", argc, kw, 1, 1) < 0) return val_null();
    Value v = argv[0];
    if (v.tag == VAL_OBJ) return val_int((int64_t)(uintptr_t)v.as.o);
    /* scalars have no address: derive a stable identity from tag and payload */
    return val_int((int64_t)((v.tag << 56) ^ (uint64_t)v.as.i));
}

static Value b_hash(ARGS) {
    if (native_check_args(vm, "hash", argc, kw, 1, 1) < 0) return val_null();
    int64_t h;
    if (vm_hash(vm, argv[0], &h) < 0) return val_null();
    return val_int(h);
}

static Value b_callable(ARGS) {
    if (native_check_args(vm, "callable", argc, kw, 1, 1) < 0) return val_null();
    return val_bool(vm_is_callable(vm, argv[0]));
}

static Value b_repr(ARGS) {
    if (native_check_args(vm, "repr", argc, kw, 1, 1) < 0) return val_null();
    return vm_repr(vm, argv[0]);
}

static Value b_ascii(ARGS) {
    if (native_check_args(vm, "ascii", argc, kw, 1, 1) < 0) return val_null();
    return vm_ascii(vm, argv[0]);
}

static Value b_format(ARGS) {
    if (native_check_args(vm, "format", argc, kw, 1, 2) < 0) return val_null();
    if (argc == 2 && !val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "format() argument 2 must be str, not %s", vm_type_name(vm, argv[1]));
    return vm_format(vm, argv[0], argc == 2 ? argv[1] : val_null());
}

static int attr_name(VM *vm, Value v, const char *fname, StrObj **out) {
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, v));
        return -1;
    }
    *out = str_intern(vm, AS_STR(v));
    return *out ? 0 : -1;
}

static Value b_getattr(ARGS) {
    if (native_check_args(vm, "getattr", argc, kw, 2, 3) < 0) return val_null();
    StrObj *name;
    if (attr_name(vm, argv[1], "getattr", &name) < 0) return val_null();
    if (argc == 3) {
        Value v = vm_getattr_opt(vm, argv[0], name);
        return val_is_null(v) && val_is_null(vm->exc) ? argv[2] : v;
    }
    Value v = vm_getattr(vm, argv[0], name);
    if (val_is_null(v) && argc == 3 && vm_exc_matches(vm, vm->e_AttributeError)) {
        vm_clear_exc(vm);
        return argv[2];
    }
    return v;
}

static Value b_setattr(ARGS) {
    if (native_check_args(vm, "setattr", argc, kw, 3, 3) < 0) return val_null();
    StrObj *name;
    if (attr_name(vm, argv[1], "setattr", &name) < 0) return val_null();
    return vm_setattr(vm, argv[0], name, argv[2]) < 0 ? val_null() : val_none();
}

static Value b_hasattr(ARGS) {
    if (native_check_args(vm, "hasattr", argc, kw, 2, 2) < 0) return val_null();
    StrObj *name;
    if (attr_name(vm, argv[1], "hasattr", &name) < 0) return val_null();
    int r = vm_hasattr(vm, argv[0], name);
    return r < 0 ? val_null() : val_bool(r);
}

static Value b_delattr(ARGS) {
    if (native_check_args(vm, "delattr", argc, kw, 2, 2) < 0) return val_null();
    StrObj *name;
    if (attr_name(vm, argv[1], "delattr", &name) < 0) return val_null();
    return vm_delattr(vm, argv[0], name) < 0 ? val_null() : val_none();
}

static Value b_vars(ARGS) {
    if (native_check_args(vm, "vars", argc, kw, 0, 1) < 0) return val_null();
    if (argc == 0) {
        Frame *f = vm->frame;
        return f && f->locals_dict ? val_obj(f->locals_dict) : f ? val_obj(f->globals) : val_none();
    }
    Value d = vm_getattr_c(vm, argv[0], "__dict__");
    if (val_is_null(d) && vm_exc_matches(vm, vm->e_AttributeError)) {
        vm_clear_exc(vm);
        return vm_raise(vm, vm->e_TypeError, "vars() argument must have __dict__ attribute");
    }
    return d;
}

static Value b_dir(ARGS) {
    if (native_check_args(vm, "dir", argc, kw, 0, 1) < 0) return val_null();
    if (argc == 0) {
        Frame *f = vm->frame;
        DictObj *d = f && f->locals_dict ? f->locals_dict : f ? f->globals : vm->builtins;
        ListObj *l = vm_list_from_iterable(vm, val_obj(d));
        if (!l) return val_null();
        vm_push_root(vm, val_obj(l));
        int rc = list_sort(vm, l, val_null(), false);
        vm_pop_root(vm);
        return rc < 0 ? val_null() : val_obj(l);
    }
    if (val_is_type(vm, argv[0], vm->t_module)) {
        ListObj *l = vm_list_from_iterable(vm, val_obj(((ModuleObj *)argv[0].as.o)->dict));
        if (!l) return val_null();
        vm_push_root(vm, val_obj(l));
        int rc = list_sort(vm, l, val_null(), false);
        vm_pop_root(vm);
        return rc < 0 ? val_null() : val_obj(l);
    }
    if (val_is_obj(argv[0]) && vm_isinstance_type(vm, argv[0], vm->t_type)) {
        TypeObj *t = AS_TYPE(argv[0]);
        DictObj *names = dict_new(vm);
        if (!names) return val_null();
        vm_push_root(vm, val_obj(names));
        for (int64_t i = 0; i < t->mro->len; i++)
            if (dict_merge_dict(vm, names, ((TypeObj *)t->mro->items[i].as.o)->dict) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
        ListObj *l = vm_list_from_iterable(vm, val_obj(names));
        vm_pop_root(vm);
        if (!l) return val_null();
        vm_push_root(vm, val_obj(l));
        int rc = list_sort(vm, l, val_null(), false);
        vm_pop_root(vm);
        return rc < 0 ? val_null() : val_obj(l);
    }
    Value r = vm_call_method(vm, argv[0], "__dir__", 0, NULL);
    if (val_is_null(r)) return r;
    vm_push_root(vm, r);
    ListObj *l = vm_list_from_iterable(vm, r);
    vm_pop_root(vm);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    int rc = list_sort(vm, l, val_null(), false);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(l);
}

static Value b_globals(ARGS) {
    Frame *f = vm->frame;
    return f ? val_obj(f->globals) : val_none();
}

/* locals(): a function frame's one dict, refreshed from its fast locals on each call (so
 * names exec() added stay), as CPython 3.11. */
static Value b_locals(ARGS) {
    Frame *f = vm->frame;
    if (!f) return val_none();
    return frame_locals(vm, f);
}

/* ---- numbers ------------------------------------------------------------------------------------ */

static Value b_abs(ARGS) {
    if (native_check_args(vm, "abs", argc, kw, 1, 1) < 0) return val_null();
    Value v = argv[0];
    if (v.tag == VAL_INT) {
        if (v.as.i == INT64_MIN) return bigint_unary(vm, -1, v);
        return val_int(v.as.i < 0 ? -v.as.i : v.as.i);
    }
    if (v.tag == VAL_BOOL) return val_int(v.as.b);
    if (v.tag == VAL_FLOAT) return val_float(fabs(v.as.f));
    if (!val_is_null(type_special(vm, vm_type_of(vm, v), SP_ABS))) return vm_call_special(vm, v, SP_ABS, 0, NULL);
    return vm_raise(vm, vm->e_TypeError, "bad operand type for abs(): '%s'", vm_type_name(vm, v));
}

static Value b_round(ARGS) {
    static const char *const names[] = {"number", "ndigits"};
    Value a[2];
    if (native_parse_args(vm, "round", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    Value x = a[0];
    bool has_nd = !val_is_null(a[1]) && !val_is_none(a[1]);
    if (x.tag == VAL_INT && !has_nd) return x;
    Value f = type_special(vm, vm_type_of(vm, x), SP_ROUND);
    if (!val_is_null(f)) return vm_call_special(vm, x, SP_ROUND, has_nd ? 1 : 0, &a[1]);
    return vm_raise(vm, vm->e_TypeError, "type %s doesn't define __round__ method", vm_type_name(vm, x));
}

/* divmod(a, b): a.__divmod__(b), then b.__rdivmod__(a) — a subclass of a's type first. */
static Value b_divmod(ARGS) {
    if (native_check_args(vm, "divmod", argc, kw, 2, 2) < 0) return val_null();
    Value a = argv[0], b = argv[1];
    TypeObj *ta = vm_type_of(vm, a), *tb = vm_type_of(vm, b);
    Value fa = type_lookup(vm, ta, vm_intern_str(vm, "__divmod__"));
    Value fb = ta != tb ? type_lookup(vm, tb, vm_intern_str(vm, "__rdivmod__")) : val_null();
    if (!val_is_null(fb) && type_is_subtype(tb, ta) && !val_identical(fa, fb)) {
        Value r = vm_call2(vm, fb, b, a);
        if (val_is_null(r) || !val_identical(r, vm->not_implemented)) return r;
        fb = val_null();
    }
    if (!val_is_null(fa)) {
        Value r = vm_call2(vm, fa, a, b);
        if (val_is_null(r) || !val_identical(r, vm->not_implemented)) return r;
    }
    if (!val_is_null(fb)) {
        Value r = vm_call2(vm, fb, b, a);
        if (val_is_null(r) || !val_identical(r, vm->not_implemented)) return r;
    }
    return vm_raise(vm, vm->e_TypeError, "unsupported operand type(s) for divmod(): '%s' and '%s'",
                    vm_type_name(vm, a), vm_type_name(vm, b));
}

static Value b_pow(ARGS) {
    static const char *const names[] = {"base", "exp", "mod"};
    Value a[3];
    if (native_parse_args(vm, "pow", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    if (val_is_null(a[2]) || val_is_none(a[2])) return vm_binary_op(vm, BINOP_POWER, a[0], a[1]);
    if (bigint_check(vm, a[0]) && bigint_check(vm, a[1]) && bigint_check(vm, a[2]))
        return num_int_powmod(vm, a[0], a[1], a[2]);
    /* ternary pow on other types: base.__pow__(exp, mod) */
    Value f = type_lookup(vm, vm_type_of(vm, a[0]), vm->binop_names[BINOP_POWER][0]);
    if (!val_is_null(f)) {
        Value r = vm_call3(vm, f, a[0], a[1], a[2]);
        if (val_is_null(r) || !val_identical(r, vm->not_implemented)) return r;
    }
    return vm_raise(vm, vm->e_TypeError, "unsupported operand type(s) for ** or pow(): '%s', '%s', '%s'",
                    vm_type_name(vm, a[0]), vm_type_name(vm, a[1]), vm_type_name(vm, a[2]));
}

static Value int_to_base(VM *vm, Value v, int base, const char *prefix) {
    mpz_t z;
    mpz_init(z);
    if (bigint_index_mpz(vm, v, z) < 0) {
        mpz_clear(z);
        return val_null();
    }
    char *digits = mpz_get_str(NULL, base, z);
    bool neg = mpz_sgn(z) < 0;
    mpz_clear(z);
    StrObj *s = str_printf(vm, "%s%s%s", neg ? "-" : "", prefix, neg ? digits + 1 : digits);
    void (*freefn)(void *, size_t);
    mp_get_memory_functions(NULL, NULL, &freefn);
    freefn(digits, strlen(digits) + 1);
    return s ? val_obj(s) : val_null();
}
static Value b_hex(ARGS) {
    if (native_check_args(vm, "hex", argc, kw, 1, 1) < 0) return val_null();
    return int_to_base(vm, argv[0], 16, "0x");
}
static Value b_oct(ARGS) {
    if (native_check_args(vm, "oct", argc, kw, 1, 1) < 0) return val_null();
    return int_to_base(vm, argv[0], 8, "0o");
}
static Value b_bin(ARGS) {
    if (native_check_args(vm, "bin", argc, kw, 1, 1) < 0) return val_null();
    return int_to_base(vm, argv[0], 2, "0b");
}

static Value b_chr(ARGS) {
    if (native_check_args(vm, "chr", argc, kw, 1, 1) < 0) return val_null();
    int64_t c;
    if (val_is_intobj(argv[0]) && !mpz_fits_slong_p(AS_INTOBJ(argv[0])->z))
        return vm_raise(vm, vm->e_OverflowError, "Python int too large to convert to C int");
    if (vm_index(vm, argv[0], &c) < 0) return val_null();
    if (c < 0 || c > 0x10ffff) return vm_raise(vm, vm->e_ValueError, "chr() arg not in range(0x110000)");
    char buf[4];
    int n = utf8_encode((uint32_t)c, buf);
    StrObj *s = str_new(vm, buf, n);
    return s ? val_obj(s) : val_null();
}

static Value b_ord(ARGS) {
    if (native_check_args(vm, "ord", argc, kw, 1, 1) < 0) return val_null();
    if (val_is_type(vm, argv[0], vm->t_bytes)) {
        BytesObj *b = (BytesObj *)argv[0].as.o;
        if (b->len != 1)
            return vm_raise(vm, vm->e_TypeError, "ord() expected a character, but string of length %lld found", (long long)b->len);
        return val_int(b->data[0]);
    }
    if (!val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "ord() expected string of length 1, but %s found", vm_type_name(vm, argv[0]));
    StrObj *s = AS_STR(argv[0]);
    if (s->ncp != 1)
        return vm_raise(vm, vm->e_TypeError, "ord() expected a character, but string of length %lld found", (long long)s->ncp);
    int64_t pos = 0;
    return val_int(utf8_decode(s->data, s->len, &pos));
}

/* ---- iteration helpers --------------------------------------------------------------------------- */

static Value minmax(VM *vm, int argc, Value *argv, TupleObj *kw, bool is_max) {
    const char *name = is_max ? "max" : "min";
    Value key = val_null(), dflt = val_null();
    for (int64_t k = 0; kw && k < kw->len; k++) {
        StrObj *n = AS_STR(kw->items[k]);
        if (str_eq_c(n, "key")) key = argv[argc + k];
        else if (str_eq_c(n, "default")) dflt = argv[argc + k];
        else return vm_raise(vm, vm->e_TypeError, "%s() got an unexpected keyword argument '%s'", name, n->data);
    }
    if (val_is_none(key)) key = val_null();
    if (argc == 0) return vm_raise(vm, vm->e_TypeError, "%s expected at least 1 argument, got 0", name);
    if (argc > 1 && !val_is_null(dflt))
        return vm_raise(vm, vm->e_TypeError, "Cannot specify a default for %s() with multiple positional arguments", name);
    Value holder = val_null();
    int64_t n;
    Value *items;
    if (argc == 1) {
        items = vm_sequence_items(vm, argv[0], &n, &holder);
        if (!items) return val_null();
    } else {
        items = argv;
        n = argc;
    }
    vm_push_root(vm, holder);
    if (n == 0) {
        vm_pop_root(vm);
        if (!val_is_null(dflt)) return dflt;
        return vm_raise(vm, vm->e_ValueError, "%s() arg is an empty sequence", name);
    }
    Value best = items[0], best_key = best;
    if (!val_is_null(key)) {
        best_key = vm_call1(vm, key, best);
        if (val_is_null(best_key)) {
            vm_pop_root(vm);
            return best_key;
        }
    }
    vm_push_root(vm, best_key);
    for (int64_t i = 1; i < n; i++) {
        Value x = items[i], xk = x;
        if (!val_is_null(key)) {
            xk = vm_call1(vm, key, x);
            if (val_is_null(xk)) {
                vm_pop_roots(vm, 2);
                return xk;
            }
        }
        vm_push_root(vm, xk);
        int better = is_max ? vm_lt(vm, best_key, xk) : vm_lt(vm, xk, best_key);
        vm_pop_root(vm);
        if (better < 0) {
            vm_pop_roots(vm, 2);
            return val_null();
        }
        if (better) {
            best = x;
            best_key = xk;
            vm->roots.v[vm->roots.n - 1] = xk;
        }
    }
    vm_pop_roots(vm, 2);
    return best;
}
static Value b_max(ARGS) { return minmax(vm, argc, argv, kw, true); }
static Value b_min(ARGS) { return minmax(vm, argc, argv, kw, false); }

static Value b_sum(ARGS) {
    static const char *const names[] = {"iterable", "start"};
    Value a[2];
    if (argc == 0) return vm_raise(vm, vm->e_TypeError, "sum() takes at least 1 positional argument (0 given)");
    if (native_parse_args(vm, "sum", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    Value acc = val_is_null(a[1]) ? val_int(0) : a[1];
    if (val_is_str(vm, acc)) return vm_raise(vm, vm->e_TypeError, "sum() can't sum strings [use ''.join(seq) instead]");
    Value it = vm_iter(vm, a[0]);
    if (val_is_null(it)) return it;
    vm_push_root(vm, it);
    vm_push_root(vm, acc);
    /* plain left-to-right addition, as CPython 3.11 (3.12 compensates float rounding) */
    for (;;) {
        Value x = vm_next(vm, it);
        if (val_is_null(x)) break;
        if (acc.tag == VAL_FLOAT && x.tag == VAL_FLOAT) {
            acc = val_float(acc.as.f + x.as.f);
        } else {
            /* x is often a fresh object only the iterator made (a generator's tensor): the
             * addition allocates (a bound __add__, its result) before it holds x anywhere */
            vm_push_root(vm, x);
            acc = vm_binary_op(vm, BINOP_ADD, acc, x);
            vm_pop_root(vm);
            if (val_is_null(acc)) break;
        }
        vm->roots.v[vm->roots.n - 1] = acc;
    }
    vm_pop_roots(vm, 2);
    if (!val_is_null(vm->exc)) return val_null();
    return acc;
}

static Value b_sorted(ARGS) {
    if (argc != 1) return vm_raise(vm, vm->e_TypeError, "sorted expected 1 argument, got %d", argc);
    Value key = val_null(), rev = val_null();
    for (int64_t k = 0; kw && k < kw->len; k++) {
        StrObj *n = AS_STR(kw->items[k]);
        if (str_eq_c(n, "key")) key = argv[argc + k];
        else if (str_eq_c(n, "reverse")) rev = argv[argc + k];
        else return vm_raise(vm, vm->e_TypeError, "sort() got an unexpected keyword argument '%s'", n->data);
    }
    ListObj *l = vm_list_from_iterable(vm, argv[0]);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    bool r = false;
    if (!val_is_null(rev)) {
        int t = vm_truthy(vm, rev);
        if (t < 0) {
            vm_pop_root(vm);
            return val_null();
        }
        r = t;
    }
    int rc = list_sort(vm, l, key, r);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(l);
}

static Value any_all(VM *vm, Value iterable, bool want) {
    Value it = vm_iter(vm, iterable);
    if (val_is_null(it)) return it;
    vm_push_root(vm, it);
    Value result = val_bool(!want);
    for (;;) {
        Value x = vm_next(vm, it);
        if (val_is_null(x)) break;
        vm_push_root(vm, x);   /* __bool__ / __len__ may allocate before x is held anywhere */
        int t = vm_truthy(vm, x);
        vm_pop_root(vm);
        if (t < 0) break;
        if ((t != 0) == want) {
            result = val_bool(want);
            break;
        }
    }
    vm_pop_root(vm);
    return val_is_null(vm->exc) ? result : val_null();
}
static Value b_any(ARGS) {
    if (native_check_args(vm, "any", argc, kw, 1, 1) < 0) return val_null();
    return any_all(vm, argv[0], true);
}
static Value b_all(ARGS) {
    if (native_check_args(vm, "all", argc, kw, 1, 1) < 0) return val_null();
    return any_all(vm, argv[0], false);
}

/* ---- classes and imports --------------------------------------------------------------------- */

/* PEP 560: a base that is not a class but has __mro_entries__ (typing.NamedTuple, Generic[T])
 * is replaced by the classes that method returns. */
static TupleObj *resolve_mro_entries(VM *vm, TupleObj *orig) {
    bool any = false;
    for (int64_t i = 0; i < orig->len && !any; i++)
        any = !(val_is_obj(orig->items[i]) && vm_isinstance_type(vm, orig->items[i], vm->t_type));
    if (!any) return orig;
    ListObj *out = list_new(vm, orig->len);
    if (!out) return NULL;
    vm_push_root(vm, val_obj(out));
    StrObj *mname = vm_intern_str(vm, "__mro_entries__");
    for (int64_t i = 0; i < orig->len; i++) {
        Value b = orig->items[i];
        Value me = (val_is_obj(b) && vm_isinstance_type(vm, b, vm->t_type)) || !mname ? val_null()
                                                                                : vm_getattr_opt(vm, b, mname);
        if (val_is_null(me)) {
            if (!val_is_null(vm->exc) || list_append(vm, out, b) < 0) goto fail;
            continue;
        }
        Value r = vm_call1(vm, me, val_obj(orig));
        if (val_is_null(r)) goto fail;
        if (!val_is_type(vm, r, vm->t_tuple)) {
            vm_raise(vm, vm->e_TypeError, "__mro_entries__ must return a tuple");
            goto fail;
        }
        for (int64_t k = 0; k < AS_TUPLE(r)->len; k++)
            if (list_append(vm, out, AS_TUPLE(r)->items[k]) < 0) goto fail;
    }
    TupleObj *t = tuple_from_array(vm, out->items, out->len);
    vm_pop_root(vm);
    return t;
fail:
    vm_pop_root(vm);
    return NULL;
}

/* __build_class__(func, name, *bases, metaclass=None, **kwds): CPython's class statement —
 * __mro_entries__, the most derived metaclass, meta.__prepare__(name, bases, **kwds) for the
 * namespace, the body run in it, then meta(name, bases, ns, **kwds) (through the metaclass's
 * __call__, so __new__ and __init__ of metaclasses run), and the __class__ cell check. */
static Value b_build_class(ARGS) {
    if (argc < 2) return vm_raise(vm, vm->e_TypeError, "__build_class__: not enough arguments");
    if (!val_is_type(vm, argv[0], vm->t_function)) return vm_raise(vm, vm->e_TypeError, "__build_class__: func must be a function");
    if (!val_is_obj(argv[1]) || argv[1].as.o->type->layout != OBJ_LAYOUT_STR)
        return vm_raise(vm, vm->e_TypeError, "__build_class__: name is not a string");
    FunctionObj *body = AS_FUNC(argv[0]);
    Value name = argv[1];
    int nroots = 0;
    Value result = val_null();
    TupleObj *orig_bases = tuple_from_array(vm, argv + 2, argc - 2);
    if (!orig_bases) return val_null();
    vm_push_root(vm, val_obj(orig_bases)), nroots++;
    TupleObj *bases = resolve_mro_entries(vm, orig_bases);
    if (!bases) goto done;
    vm_push_root(vm, val_obj(bases)), nroots++;
    /* metaclass= is taken out of the keywords; the rest go to __prepare__ and the metaclass */
    int nkw = kw ? (int)kw->len : 0;
    Value meta = val_null();
    TupleObj *kwn = NULL;
    Value *kwvals = malloc(sizeof(Value) * (size_t)(nkw + 4) + 1);
    if (!kwvals) {
        vm_no_memory(vm);
        goto done;
    }
    int nrest = 0;
    for (int k = 0; k < nkw; k++)
        if (str_eq_c(AS_STR(kw->items[k]), "metaclass")) meta = argv[argc + k];
        else nrest++;
    if (nrest) {
        kwn = tuple_new(vm, nrest);
        if (!kwn) goto done_free;
        int j = 0;
        for (int k = 0; k < nkw; k++)
            if (!str_eq_c(AS_STR(kw->items[k]), "metaclass")) {
                kwn->items[j] = kw->items[k];
                kwvals[4 + j] = argv[argc + k];
                j++;
            }
    }
    vm_push_root(vm, kwn ? val_obj(kwn) : val_null()), nroots++;
    bool is_class = true;
    if (val_is_null(meta)) meta = bases->len ? val_obj(vm_type_of(vm, bases->items[0])) : val_obj(vm->t_type);
    else is_class = val_is_obj(meta) && vm_isinstance_type(vm, meta, vm->t_type);
    if (is_class) {
        /* the most derived of the metaclass and the bases' metaclasses */
        TypeObj *winner = type_calculate_metaclass(vm, AS_TYPE(meta), bases);
        if (!winner) goto done_free;
        meta = val_obj(winner);
    }
    vm_push_root(vm, meta), nroots++;
    /* the namespace */
    Value ns;
    Value prep = vm_getattr_opt(vm, meta, vm_intern_str(vm, "__prepare__"));
    if (!val_is_null(vm->exc)) goto done_free;
    if (val_is_null(prep)) {
        DictObj *d = dict_new(vm);
        if (!d) goto done_free;
        ns = val_obj(d);
    } else {
        vm_push_root(vm, prep);
        kwvals[2] = name;
        kwvals[3] = val_obj(bases);
        ns = vm_call(vm, prep, 2, kwvals + 2, kwn);
        vm_pop_root(vm);
        if (val_is_null(ns)) goto done_free;
        if (val_is_null(type_special(vm, vm_type_of(vm, ns), SP_GETITEM))) {
            Value mr = vm_getattr_opt(vm, meta, vm_intern_str(vm, "__name__"));
            vm_raise(vm, vm->e_TypeError, "%s.__prepare__() must return a mapping, not %s",
                     is_class ? AS_TYPE(meta)->name->data : val_is_str(vm, mr) ? AS_STR(mr)->data : "<metaclass>",
                     vm_type_name(vm, ns));
            goto done_free;
        }
    }
    vm_push_root(vm, ns), nroots++;
    /* the body runs with the namespace as its locals (any mapping: LOAD_NAME/STORE_NAME use
     * the mapping protocol when it is not a plain dict) */
    Frame *f = frame_push(vm, body->code, (Obj *)body, body->globals, (DictObj *)ns.as.o);
    Value r = f ? vm->eval_frame(vm, f) : val_null();
    if (val_is_null(r)) goto done_free;
    vm_push_root(vm, r), nroots++;
    if (bases != orig_bases && vm_setitem(vm, ns, vm_intern(vm, "__orig_bases__"), val_obj(orig_bases)) < 0)
        goto done_free;
    /* the body returns the __class__ cell when methods use super()/__class__ */
    bool has_cell = val_is_type(vm, r, vm->t_cell);
    if (has_cell && vm_setitem(vm, ns, vm_intern(vm, "__classcell__"), r) < 0) goto done_free;
    kwvals[1] = name;
    kwvals[2] = val_obj(bases);
    kwvals[3] = ns;
    Value cls = vm_call(vm, meta, 3, kwvals + 1, kwn);
    if (val_is_null(cls)) goto done_free;
    if (has_cell && val_is_obj(cls) && vm_isinstance_type(vm, cls, vm->t_type)) {
        Value cell_v = ((CellObj *)r.as.o)->v;
        if (!val_identical(cell_v, cls)) {
            vm_push_root(vm, cls), nroots++;
            Value nr = vm_repr(vm, name);
            if (val_is_null(nr)) goto done_free;
            vm_push_root(vm, nr), nroots++;
            Value cr = vm_repr(vm, cls);
            if (val_is_null(cr)) goto done_free;
            vm_push_root(vm, cr), nroots++;
            if (val_is_null(cell_v)) {
                vm_raise(vm, vm->e_RuntimeError, "__class__ not set defining %s as %s. "
                         "Was __classcell__ propagated to type.__new__?", AS_STR(nr)->data, AS_STR(cr)->data);
            } else {
                Value vr = vm_repr(vm, cell_v);
                if (!val_is_null(vr))
                    vm_raise(vm, vm->e_TypeError, "__class__ set to %s defining %s as %s", AS_STR(vr)->data,
                             AS_STR(nr)->data, AS_STR(cr)->data);
            }
            goto done_free;
        }
    }
    result = cls;
done_free:
    free(kwvals);
done:
    vm_pop_roots(vm, nroots);
    return result;
}

static Value b_import(ARGS) {
    static const char *const names[] = {"name", "globals", "locals", "fromlist", "level"};
    Value a[5];
    if (native_parse_args(vm, "__import__", argc, argv, kw, 5, 1, names, 5, a) < 0) return val_null();
    if (!val_is_str(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "module name must be str, not %s", vm_type_name(vm, a[0]));
    DictObj *g = val_is_obj(a[1]) && vm_isinstance_type(vm, a[1], vm->t_dict) ? AS_DICT(a[1]) : NULL;
    int64_t level = 0;
    if (!val_is_null(a[4]) && vm_index(vm, a[4], &level) < 0) return val_null();
    return vm_import_level(vm, AS_STR(a[0]), g, val_is_null(a[3]) ? val_none() : a[3], level);
}

void builtins_init(VM *vm) {
    static const MethodDef defs[] = {
        {"print", b_print}, {"len", b_len, ARITY_O}, {"isinstance", b_isinstance, ARITY_POS(2, 2)},
        {"issubclass", b_issubclass, ARITY_POS(2, 2)}, {"id", b_id, ARITY_O}, {"hash", b_hash, ARITY_O},
        {"callable", b_callable, ARITY_O}, {"repr", b_repr, ARITY_O}, {"ascii", b_ascii, ARITY_O},
        {"format", b_format, ARITY_POS(1, 2)}, {"getattr", b_getattr, ARITY_POS(2, 3)},
        {"setattr", b_setattr, ARITY_POS(3, 3)}, {"hasattr", b_hasattr, ARITY_POS(2, 2)},
        {"delattr", b_delattr, ARITY_POS(2, 2)}, {"vars", b_vars, ARITY_POS(0, 1)}, {"dir", b_dir, ARITY_POS(0, 1)},
        {"globals", b_globals, ARITY_NOARGS}, {"locals", b_locals, ARITY_NOARGS},
        {"abs", b_abs, ARITY_O}, {"round", b_round}, {"divmod", b_divmod, ARITY_POS(2, 2)}, {"pow", b_pow},
        {"hex", b_hex, ARITY_O}, {"oct", b_oct, ARITY_O}, {"bin", b_bin, ARITY_O}, {"chr", b_chr, ARITY_O},
        {"ord", b_ord, ARITY_O}, {"max", b_max}, {"min", b_min},
        {"sum", b_sum}, {"sorted", b_sorted}, {"any", b_any, ARITY_O}, {"all", b_all, ARITY_O},
        {"__build_class__", b_build_class}, {"__import__", b_import}, {NULL}};
    if (dict_add_functions(vm, vm->builtins, defs) < 0) EM_UNREACHABLE();
    static const char *const type_names[][2] = {
        {"object", "object"}, {"type", "type"}, {"int", "int"}, {"float", "float"}, {"bool", "bool"},
        {"str", "str"}, {"bytes", "bytes"}, {"tuple", "tuple"}, {"list", "list"}, {"dict", "dict"},
        {"set", "set"}, {"frozenset", "frozenset"}, {"range", "range"}, {"slice", "slice"},
        {"property", "property"}, {"staticmethod", "staticmethod"}, {"classmethod", "classmethod"},
        {"super", "super"}, {"complex", "complex"}, {"bytearray", "bytearray"}, {"memoryview", "memoryview"}};
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
        Value t = val_null();
#define X(f, s) if (strcmp(type_names[i][1], s) == 0) t = val_obj(vm->t_##f);
        VM_TYPES(X)
#undef X
        if (dict_set_c(vm, vm->builtins, type_names[i][0], t) < 0) EM_UNREACHABLE();
    }
#define X(n, b) if (dict_set_c(vm, vm->builtins, #n, val_obj(vm->e_##n)) < 0) EM_UNREACHABLE();
    VM_EXCEPTIONS(X)
#undef X
    if (dict_set_c(vm, vm->builtins, "EnvironmentError", val_obj(vm->e_OSError)) < 0 ||
        dict_set_c(vm, vm->builtins, "IOError", val_obj(vm->e_OSError)) < 0 ||
        dict_set_c(vm, vm->builtins, "NotImplemented", vm->not_implemented) < 0 ||
        dict_set_c(vm, vm->builtins, "Ellipsis", vm->ellipsis) < 0 ||
        dict_set_c(vm, vm->builtins, "None", val_none()) < 0 ||
        dict_set_c(vm, vm->builtins, "True", val_bool(true)) < 0 ||
        dict_set_c(vm, vm->builtins, "False", val_bool(false)) < 0 ||
        dict_set_c(vm, vm->builtins, "__debug__", val_bool(true)) < 0 ||
        dict_set_c(vm, vm->builtins, "__name__", vm_intern(vm, "builtins")) < 0)
        EM_UNREACHABLE();
}
