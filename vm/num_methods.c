/* vm/num_methods.c — int, float, bool and NoneType as script-visible types: the constructors
 * int(x, base), float(x), bool(x) with CPython's conversion rules and messages (and their
 * subclass forms: int.__new__(MyInt, 3) makes an IntObj of MyInt), and the methods of int and
 * float.  Every method takes its receiver in any form — unboxed, big, or a subclass instance —
 * and computes on the value, never by dispatching back through the operators (which would find
 * the same method again for a subclass). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vm/bytes_ops.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* ---- receivers ------------------------------------------------------------------------------ */

static bool is_int(Value v) { return v.tag == VAL_INT || v.tag == VAL_BOOL || val_is_intobj(v); }
static bool is_float(Value v) {
    return v.tag == VAL_FLOAT || (v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_FLOAT);
}
static double fval(Value v) { return v.tag == VAL_FLOAT ? v.as.f : ((FloatObj *)v.as.o)->v; }

/* The plain int value of any int (bool -> 0/1, a subclass instance -> its value as int). */
static Value int_plain(VM *vm, Value v) {
    if (v.tag == VAL_INT) return v;
    if (v.tag == VAL_BOOL) return val_int(v.as.b);
    if (v.as.o->type == vm->t_int) return v;
    return bigint_from_mpz(vm, AS_INTOBJ(v)->z);
}

static Value new_float_of(VM *vm, TypeObj *t, double d);
static FloatObj *float_subclass_alloc(VM *vm, TypeObj *t);

/* ---- int() ------------------------------------------------------------------------------------ */

/* The text of a str or bytes argument to int()/float(), or NULL if x is neither. */
static StrObj *numeric_text(VM *vm, Value x, bool *is_bytes) {
    *is_bytes = false;
    if (val_is_obj(x) && x.as.o->type->layout == OBJ_LAYOUT_STR) return AS_STR(x);
    /* bytes and bytearray (as CPython's PyLong_FromUnicodeObject/_PyLong_FromBytes callers) */
    if (val_is_obj(x) && (x.as.o->type->layout == OBJ_LAYOUT_BYTES || x.as.o->type->layout == OBJ_LAYOUT_BYTEARRAY)) {
        *is_bytes = true;
        const uint8_t *data;
        int64_t len;
        if (!bytes_view(vm, x, &data, &len)) return NULL;
        /* bytes are ASCII text here; anything else makes the literal invalid */
        StrBuf sb;
        sb_init(&sb);
        for (int64_t i = 0; i < len; i++) sb_addc(&sb, data[i] < 0x80 && data[i] ? (char)data[i] : '?');
        return sb_finish(vm, &sb);
    }
    return NULL;
}

/* Re-raise a parse error of bytes input with the bytes' repr, as CPython words it. */
static Value bytes_parse_error(VM *vm, Value x, const char *fmt, int base) {
    if (!vm_exc_matches(vm, vm->e_ValueError)) return val_null();
    vm_clear_exc(vm);
    /* int() shows a bytearray as the bytes it holds (CPython's _PyLong_FromBytes); float() as
     * itself */
    if (base >= 0 && val_is_obj(x) && x.as.o->type->layout == OBJ_LAYOUT_BYTEARRAY) {
        BytesObj *b = bytes_new(vm, ((ByteArrayObj *)x.as.o)->data, ((ByteArrayObj *)x.as.o)->len);
        if (!b) return val_null();
        x = val_obj(b);
    }
    vm_push_root(vm, x);
    Value r = vm_repr(vm, x);
    vm_pop_root(vm);
    if (val_is_null(r)) return r;
    if (base >= 0) return vm_raise(vm, vm->e_ValueError, fmt, base, AS_STR(r)->data);
    return vm_raise(vm, vm->e_ValueError, fmt, AS_STR(r)->data);
}

/* PyNumber_Long: __int__, __index__, __trunc__, str/bytes. */
static Value number_to_int(VM *vm, Value x) {
    if (is_int(x)) return int_plain(vm, x);
    if (x.tag == VAL_FLOAT) return bigint_from_double(vm, x.as.f);
    TypeObj *t = vm_type_of(vm, x);
    if (!val_is_null(type_special(vm, t, SP_INT))) {
        Value r = vm_call_special(vm, x, SP_INT, 0, NULL);
        if (val_is_null(r) || is_int(r)) return val_is_null(r) ? r : int_plain(vm, r);
        return vm_raise(vm, vm->e_TypeError, "__int__ returned non-int (type %s)", vm_type_name(vm, r));
    }
    if (!val_is_null(type_special(vm, t, SP_INDEX))) {
        Value r = vm_call_special(vm, x, SP_INDEX, 0, NULL);
        if (val_is_null(r) || is_int(r)) return val_is_null(r) ? r : int_plain(vm, r);
        return vm_raise(vm, vm->e_TypeError, "__index__ returned non-int (type %s)", vm_type_name(vm, r));
    }
    StrObj *trunc = vm_intern_str(vm, "__trunc__");
    if (!val_is_null(type_lookup(vm, t, trunc))) {
        Value r = vm_call_method(vm, x, "__trunc__", 0, NULL);
        if (val_is_null(r) || is_int(r)) return val_is_null(r) ? r : int_plain(vm, r);
        if (val_is_null(type_special(vm, vm_type_of(vm, r), SP_INDEX)))
            return vm_raise(vm, vm->e_TypeError, "__trunc__ returned non-Integral (type %s)", vm_type_name(vm, r));
        vm_push_root(vm, r);
        Value i = vm_call_special(vm, r, SP_INDEX, 0, NULL);
        vm_pop_root(vm);
        return val_is_null(i) || is_int(i) ? (val_is_null(i) ? i : int_plain(vm, i))
                                           : vm_raise(vm, vm->e_TypeError, "__index__ returned non-int (type %s)", vm_type_name(vm, i));
    }
    bool is_bytes;
    StrObj *text = numeric_text(vm, x, &is_bytes);
    if (text) {
        Value r = parse_int(vm, text, 10);
        if (val_is_null(r) && is_bytes) return bytes_parse_error(vm, x, "invalid literal for int() with base %d: %s", 10);
        return r;
    }
    if (!val_is_null(vm->exc)) return val_null();
    return vm_raise(vm, vm->e_TypeError,
                    "int() argument must be a string, a bytes-like object or a real number, not '%s'", t->name->data);
}

static Value int_new(ARGS) {
    static const char *const names[] = {"cls", "x", "base"};
    Value a[3];
    if (native_parse_args(vm, "int", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    if (!val_is_obj(a[0]) || !vm_isinstance_type(vm, a[0], vm->t_type) || !type_is_subtype(AS_TYPE(a[0]), vm->t_int))
        return vm_raise(vm, vm->e_TypeError, "int.__new__(%s): %s is not a subtype of int",
                        val_is_obj(a[0]) && vm_isinstance_type(vm, a[0], vm->t_type) ? AS_TYPE(a[0])->name->data : vm_type_name(vm, a[0]),
                        val_is_obj(a[0]) && vm_isinstance_type(vm, a[0], vm->t_type) ? AS_TYPE(a[0])->name->data : vm_type_name(vm, a[0]));
    TypeObj *cls = AS_TYPE(a[0]);
    Value x = a[1], r;
    if (val_is_null(x)) {
        if (!val_is_null(a[2])) return vm_raise(vm, vm->e_TypeError, "int() missing string argument");
        r = val_int(0);
    } else if (!val_is_null(a[2])) {
        int64_t base;
        if (vm_index(vm, a[2], &base) < 0) return val_null();
        bool is_bytes;
        StrObj *text = numeric_text(vm, x, &is_bytes);
        if (!text) {
            if (!val_is_null(vm->exc)) return val_null();
            return vm_raise(vm, vm->e_TypeError, "int() can't convert non-string with explicit base");
        }
        if (base != 0 && (base < 2 || base > 36)) return vm_raise(vm, vm->e_ValueError, "int() base must be >= 2 and <= 36, or 0");
        r = parse_int(vm, text, (int)base);
        if (val_is_null(r) && is_bytes) return bytes_parse_error(vm, x, "invalid literal for int() with base %d: %s", (int)base);
    } else {
        r = number_to_int(vm, x);
    }
    if (val_is_null(r) || cls == vm->t_int) return r;
    /* a subclass instance holding the value */
    mpz_t z;
    mpz_init(z);
    bigint_load(r, z);
    Value o = bigint_new_obj(vm, cls, z);
    mpz_clear(z);
    return o;
}

/* ---- int methods ------------------------------------------------------------------------------ */

#define SELF argv[0]

static Value int_repr(ARGS) {
    StrObj *s = bigint_to_str(vm, SELF, 10);
    return s ? val_obj(s) : val_null();
}
static Value int_hash(ARGS) { return val_int(bigint_hash(SELF)); }
static Value int_bool(ARGS) { return val_bool(bigint_truthy(SELF)); }
static Value int_self_fn(ARGS) { return int_plain(vm, SELF); }
static Value int_float(ARGS) {
    double d;
    return bigint_to_double(vm, SELF, &d) < 0 ? val_null() : val_float(d);
}
static Value int_format(ARGS) {
    if (native_check_args(vm, "__format__", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_obj(argv[1]) || argv[1].as.o->type->layout != OBJ_LAYOUT_STR)
        return vm_raise(vm, vm->e_TypeError, "__format__() argument must be str, not %s", vm_type_name(vm, argv[1]));
    /* an empty spec is str(self): a subclass's __str__ shows (CPython's int.__format__) */
    if (AS_STR(argv[1])->len == 0) return vm_str(vm, SELF);
    return format_int(vm, SELF, AS_STR(argv[1]));
}
static Value int_unary(ARGS) { return bigint_unary(vm, (int)(intptr_t)fn->data, SELF); }

static Value int_bit_length(ARGS) { return val_int(bigint_bit_length(vm, SELF)); }
static Value int_bit_count(ARGS) {
    if (!val_is_intobj(SELF)) {
        int64_t x = val_as_intlike(SELF);
        uint64_t m = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
        return val_int(__builtin_popcountll(m));
    }
    mpz_t a;
    mpz_init(a);
    mpz_abs(a, AS_INTOBJ(SELF)->z);
    int64_t n = (int64_t)mpz_popcount(a);
    mpz_clear(a);
    return val_int(n);
}
static Value int_sizeof(ARGS) {
    int64_t bits = bigint_bit_length(vm, SELF);
    int64_t digits = (bits + 29) / 30;
    return val_int(24 + 4 * (digits ? digits : 1));
}
static Value int_getnewargs(ARGS) {
    Value v = int_plain(vm, SELF);
    if (val_is_null(v)) return v;
    TupleObj *t = tuple_pack(vm, 1, v);
    return t ? val_obj(t) : val_null();
}
static Value int_as_integer_ratio(ARGS) {
    Value v = int_plain(vm, SELF);
    if (val_is_null(v)) return v;
    TupleObj *t = tuple_pack(vm, 2, v, val_int(1));
    return t ? val_obj(t) : val_null();
}

/* round(int, ndigits): half-even to a multiple of 10**-ndigits. */
static Value int_round(ARGS) {
    if (native_check_args(vm, "__round__", argc, kw, 1, 2) < 0) return val_null();
    if (argc == 1 || val_is_none(argv[1])) return int_plain(vm, SELF);
    mpz_t nd, x, p, q, r;
    mpz_inits(nd, x, p, q, r, NULL);
    Value res = val_null();
    if (bigint_index_mpz(vm, argv[1], nd) < 0) goto done;
    if (mpz_sgn(nd) >= 0) {
        res = int_plain(vm, SELF);
        goto done;
    }
    bigint_load(SELF, x);
    mpz_neg(nd, nd);
    if (!mpz_fits_ulong_p(nd) || mpz_get_ui(nd) > mpz_sizeinbase(x, 10) + 1) {
        res = val_int(0);
        goto done;
    }
    mpz_ui_pow_ui(p, 10, mpz_get_ui(nd));
    mpz_fdiv_qr(q, r, x, p);   /* x = q*p + r, 0 <= r < p */
    mpz_mul_2exp(r, r, 1);
    int c = mpz_cmp(r, p);
    if (c > 0 || (c == 0 && mpz_odd_p(q))) mpz_add_ui(q, q, 1);
    mpz_mul(q, q, p);
    res = bigint_from_mpz(vm, q);
done:
    mpz_clears(nd, x, p, q, r, NULL);
    return res;
}

/* int.to_bytes(length=1, byteorder='big', *, signed=False) */
static int parse_byteorder(VM *vm, Value v, bool *little) {
    if (val_is_null(v)) {
        *little = false;
        return 0;
    }
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "to_bytes() argument 'byteorder' must be str, not %s", vm_type_name(vm, v));
        return -1;
    }
    if (str_eq_c(AS_STR(v), "little")) *little = true;
    else if (str_eq_c(AS_STR(v), "big")) *little = false;
    else {
        vm_raise(vm, vm->e_ValueError, "byteorder must be either 'little' or 'big'");
        return -1;
    }
    return 0;
}

static Value int_to_bytes(ARGS) {
    static const char *const names[] = {"self", "length", "byteorder", "signed"};
    Value a[4];
    if (native_parse_args(vm, "to_bytes", argc, argv, kw, 3, 1, names, 4, a) < 0) return val_null();
    int64_t len = 1;
    if (!val_is_null(a[1]) && vm_index(vm, a[1], &len) < 0) return val_null();
    if (len < 0) return vm_raise(vm, vm->e_ValueError, "length argument must be non-negative");
    bool little, is_signed = false;
    if (parse_byteorder(vm, a[2], &little) < 0) return val_null();
    if (!val_is_null(a[3])) {
        int t = vm_truthy(vm, a[3]);
        if (t < 0) return val_null();
        is_signed = t;
    }
    mpz_t x;
    mpz_init(x);
    bigint_load(SELF, x);
    Value res = val_null();
    if (mpz_sgn(x) < 0 && !is_signed) {
        vm_raise(vm, vm->e_OverflowError, "can't convert negative int to unsigned");
        goto done;
    }
    /* the two's-complement bytes of x in len bytes: x mod 256**len, checked to round-trip */
    size_t need = mpz_sgn(x) ? mpz_sizeinbase(x, 2) : 0;
    if (is_signed) {
        /* -2**(8n-1) <= x < 2**(8n-1) */
        mpz_t lim;
        mpz_init(lim);
        bool fits;
        if (len == 0) fits = mpz_sgn(x) == 0;
        else {
            mpz_ui_pow_ui(lim, 2, (unsigned long)(8 * len - 1));
            fits = mpz_cmp(x, lim) < 0;
            mpz_neg(lim, lim);
            fits = fits && mpz_cmp(x, lim) >= 0;
        }
        mpz_clear(lim);
        if (!fits) {
            vm_raise(vm, vm->e_OverflowError, "int too big to convert");
            goto done;
        }
    } else if ((int64_t)need > 8 * len) {
        vm_raise(vm, vm->e_OverflowError, "int too big to convert");
        goto done;
    }
    BytesObj *b = bytes_new(vm, NULL, len);
    if (!b) goto done;
    if (len) {
        if (mpz_sgn(x) < 0) {
            mpz_t m;
            mpz_init(m);
            mpz_ui_pow_ui(m, 2, (unsigned long)(8 * len));
            mpz_add(x, x, m);
            mpz_clear(m);
        }
        memset(b->data, 0, (size_t)len);
        size_t count = 0;
        uint8_t *tmp = mpz_export(NULL, &count, little ? -1 : 1, 1, 1, 0, x);
        /* mpz_export gives NULL (count 0) for zero: no memcpy from NULL (UBSan) */
        if (count && little) memcpy(b->data, tmp, count);
        else if (count) memcpy(b->data + len - (int64_t)count, tmp, count);
        free(tmp);
    }
    res = val_obj(b);
done:
    mpz_clear(x);
    return res;
}

/* The bytes of a bytes-like object or of an iterable of ints 0..255, into a malloc'd buffer. */
static uint8_t *bytes_of(VM *vm, Value src, int64_t *n) {
    if (val_is_obj(src) && src.as.o->type->layout == OBJ_LAYOUT_BYTES) {
        BytesObj *b = (BytesObj *)src.as.o;
        uint8_t *p = malloc((size_t)b->len + 1);
        if (!p) {
            vm_no_memory(vm);
            return NULL;
        }
        memcpy(p, b->data, (size_t)b->len);
        *n = b->len;
        return p;
    }
    Value holder = val_null();
    int64_t cnt;
    Value *items = vm_sequence_items(vm, src, &cnt, &holder);
    if (!items) {
        if (vm_exc_matches(vm, vm->e_TypeError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_TypeError, "cannot convert '%s' object to bytes", vm_type_name(vm, src));
        }
        return NULL;
    }
    vm_push_root(vm, holder);
    uint8_t *p = malloc((size_t)cnt + 1);
    for (int64_t i = 0; p && i < cnt; i++) {
        int64_t v;
        if (vm_index(vm, items[i], &v) < 0) {
            free(p);
            p = NULL;
            break;
        }
        if (v < 0 || v > 255) {
            vm_raise(vm, vm->e_ValueError, "bytes must be in range(0, 256)");
            free(p);
            p = NULL;
            break;
        }
        p[i] = (uint8_t)v;
    }
    vm_pop_root(vm);
    if (!p && val_is_null(vm->exc)) vm_no_memory(vm);
    *n = cnt;
    return p;
}

/* int.from_bytes(bytes, byteorder='big', *, signed=False), a class method */
static Value int_from_bytes(ARGS) {
    static const char *const names[] = {"cls", "bytes", "byteorder", "signed"};
    Value a[4];
    if (native_parse_args(vm, "from_bytes", argc, argv, kw, 3, 2, names, 4, a) < 0) return val_null();
    bool little, is_signed = false;
    if (parse_byteorder(vm, a[2], &little) < 0) return val_null();
    if (!val_is_null(a[3])) {
        int t = vm_truthy(vm, a[3]);
        if (t < 0) return val_null();
        is_signed = t;
    }
    int64_t n;
    uint8_t *p = bytes_of(vm, a[1], &n);
    if (!p) return val_null();
    mpz_t x;
    mpz_init(x);
    if (n) mpz_import(x, (size_t)n, little ? -1 : 1, 1, 1, 0, p);
    bool negative = is_signed && n && (p[little ? n - 1 : 0] & 0x80);
    free(p);
    if (negative) {
        mpz_t m;
        mpz_init(m);
        mpz_ui_pow_ui(m, 2, (unsigned long)(8 * n));
        mpz_sub(x, x, m);
        mpz_clear(m);
    }
    Value r = bigint_from_mpz(vm, x);
    mpz_clear(x);
    if (val_is_null(r) || AS_TYPE(a[0]) == vm->t_int) return r;
    /* a subclass: cls(value), as CPython */
    return vm_call1(vm, a[0], r);
}

/* The int/float operator dunders (int.__add__, (1.5).__lt__, ...).  Operators on exact numbers
 * never look these up (num_binary and num_compare come first); they serve subclass instances
 * and code that names them.  data: BinaryOp | NUM_REFLECTED, or a CompareOp + NUM_CMP;
 * NUM_FLOAT marks float's, which take ints as the other operand (int's do not take floats). */
enum { NUM_REFLECTED = 0x100, NUM_CMP = 0x200, NUM_FLOAT = 0x400 };

static bool other_ok(Value self, Value other, bool float_method) {
    if (float_method) return is_float(other) || is_int(other);
    return is_int(other);
}

static Value num_binop_dunder(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 2, 2) < 0) return val_null();
    intptr_t d = (intptr_t)fn->data;
    if (!other_ok(argv[0], argv[1], d & NUM_FLOAT)) return vm->not_implemented;
    if (d & NUM_CMP) {
        bool ok;
        return val_bool(num_compare_ex(vm, argv[0], argv[1], (CompareOp)(d & 0xff), &ok, true));
    }
    Value a = argv[0], b = argv[1], out;
    if (d & NUM_REFLECTED) {
        a = argv[1];
        b = argv[0];
    }
    int r = num_binary_ex(vm, (int)(d & 0xff), a, b, &out, true);
    if (r < 0) return val_null();
    return r ? out : vm->not_implemented;
}

static Value num_divmod_dunder(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 2, 2) < 0) return val_null();
    intptr_t d = (intptr_t)fn->data;
    if (!other_ok(argv[0], argv[1], d & NUM_FLOAT)) return vm->not_implemented;
    Value a = (d & NUM_REFLECTED) ? argv[1] : argv[0], b = (d & NUM_REFLECTED) ? argv[0] : argv[1], q, m;
    if (is_float(a) || is_float(b)) {
        double x, y;
        if (vm_to_double(vm, a, &x) < 0 || vm_to_double(vm, b, &y) < 0) return val_null();
        if (y == 0) return vm_raise(vm, vm->e_ZeroDivisionError, "float divmod()");
    }
    if (num_binary_ex(vm, BINOP_FLOOR_DIVIDE, a, b, &q, true) < 0) return val_null();
    vm_push_root(vm, q);
    int rc = num_binary_ex(vm, BINOP_REMAINDER, a, b, &m, true);
    if (rc < 0) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, m);   /* both rooted while the tuple is allocated (tuple_pack's contract) */
    TupleObj *t = tuple_pack(vm, 2, q, m);
    vm_pop_roots(vm, 2);
    return t ? val_obj(t) : val_null();
}

/* pow(base, exp, mod) on ints: modular exponentiation, a negative exponent meaning the modular
 * inverse (as CPython 3.8+). */
Value num_int_powmod(VM *vm, Value base, Value exp, Value mod) {
    mpz_t b, e, m, r;
    mpz_inits(b, e, m, r, NULL);
    bigint_load(base, b);
    bigint_load(exp, e);
    bigint_load(mod, m);
    Value res = val_null();
    if (!mpz_sgn(m)) {
        vm_raise(vm, vm->e_ValueError, "pow() 3rd argument cannot be 0");
        goto done;
    }
    bool neg_mod = mpz_sgn(m) < 0;
    mpz_abs(m, m);
    if (mpz_sgn(e) < 0) {
        if (!mpz_invert(b, b, m)) {
            vm_raise(vm, vm->e_ValueError, "base is not invertible for the given modulus");
            goto done;
        }
        mpz_neg(e, e);
    }
    mpz_powm(r, b, e, m);   /* 0 <= r < |m| */
    if (neg_mod && mpz_sgn(r)) mpz_sub(r, r, m);
    res = bigint_from_mpz(vm, r);
done:
    mpz_clears(b, e, m, r, NULL);
    return res;
}

static Value int_pow_dunder(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 2, 3) < 0) return val_null();
    bool reflected = (intptr_t)fn->data & NUM_REFLECTED;
    if (!is_int(argv[1])) return vm->not_implemented;
    if (argc == 3 && !val_is_none(argv[2])) {
        if (!is_int(argv[2])) return vm->not_implemented;
        return reflected ? num_int_powmod(vm, argv[1], argv[0], argv[2]) : num_int_powmod(vm, argv[0], argv[1], argv[2]);
    }
    Value out;
    int r = reflected ? num_binary_ex(vm, BINOP_POWER, argv[1], argv[0], &out, true)
                      : num_binary_ex(vm, BINOP_POWER, argv[0], argv[1], &out, true);
    return r < 0 ? val_null() : out;
}

static Value int_get_real(VM *vm, Value s, void *c) { return int_plain(vm, s); }
static Value int_get_imag(VM *vm, Value s, void *c) { return val_int(0); }
static Value int_get_den(VM *vm, Value s, void *c) { return val_int(1); }

/* ---- float() ------------------------------------------------------------------------------------ */

static Value new_float_of(VM *vm, TypeObj *t, double d) {
    if (t == vm->t_float) return val_float(d);
    FloatObj *o = float_subclass_alloc(vm, t);
    if (!o) return val_null();
    o->v = d;
    return val_obj(o);
}

static Value float_new(ARGS) {
    if (native_check_args(vm, "float", argc, kw, 1, 2) < 0) return val_null();
    if (!val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_type) || !type_is_subtype(AS_TYPE(argv[0]), vm->t_float)) {
        const char *n = val_is_obj(argv[0]) && vm_isinstance_type(vm, argv[0], vm->t_type) ? AS_TYPE(argv[0])->name->data : vm_type_name(vm, argv[0]);
        return vm_raise(vm, vm->e_TypeError, "float.__new__(%s): %s is not a subtype of float", n, n);
    }
    TypeObj *cls = AS_TYPE(argv[0]);
    if (argc == 1) return new_float_of(vm, cls, 0.0);
    Value x = argv[1];
    double d;
    if (is_float(x)) {
        d = fval(x);
    } else if (is_int(x)) {
        if (bigint_to_double(vm, x, &d) < 0) return val_null();
    } else {
        bool is_bytes;
        StrObj *text = numeric_text(vm, x, &is_bytes);
        if (text) {
            Value r = parse_float(vm, text);
            if (val_is_null(r)) return is_bytes ? bytes_parse_error(vm, x, "could not convert string to float: %s", -1) : r;
            d = r.as.f;
        } else {
            if (!val_is_null(vm->exc)) return val_null();
            TypeObj *t = vm_type_of(vm, x);
            if (val_is_null(type_special(vm, t, SP_FLOAT)) && val_is_null(type_special(vm, t, SP_INDEX)))
                return vm_raise(vm, vm->e_TypeError, "float() argument must be a string or a real number, not '%s'", t->name->data);
            if (vm_to_double(vm, x, &d) < 0) return val_null();
        }
    }
    return new_float_of(vm, cls, d);
}

static Value bool_repr(ARGS) { return vm_intern(vm, bigint_truthy(SELF) ? "True" : "False"); }

static Value bool_new(ARGS) {
    if (native_check_args(vm, "bool", argc, kw, 1, 2) < 0) return val_null();
    if (argc == 1) return val_bool(false);
    int t = vm_truthy(vm, argv[1]);
    return t < 0 ? val_null() : val_bool(t);
}

/* ---- float methods ------------------------------------------------------------------------------ */

static Value float_repr_fn(ARGS) {
    char buf[64];
    float_repr(fval(SELF), buf, sizeof buf);
    StrObj *s = str_from_c(vm, buf);
    return s ? val_obj(s) : val_null();
}
static Value float_hash(ARGS) {
    int64_t h;
    if (vm_hash(vm, val_float(fval(SELF)), &h) < 0) return val_null();
    return val_int(h);
}
static Value float_bool(ARGS) { return val_bool(fval(SELF) != 0); }
static Value float_float(ARGS) { return val_float(fval(SELF)); }
static Value float_int(ARGS) { return bigint_from_double(vm, fval(SELF)); }
static Value float_floor(ARGS) { return bigint_from_double(vm, floor(fval(SELF))); }
static Value float_ceil(ARGS) { return bigint_from_double(vm, ceil(fval(SELF))); }
static Value float_format(ARGS) {
    if (native_check_args(vm, "__format__", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_obj(argv[1]) || argv[1].as.o->type->layout != OBJ_LAYOUT_STR)
        return vm_raise(vm, vm->e_TypeError, "__format__() argument must be str, not %s", vm_type_name(vm, argv[1]));
    if (AS_STR(argv[1])->len == 0) return vm_str(vm, SELF);
    return format_float(vm, fval(SELF), AS_STR(argv[1]));
}
static Value float_unary(ARGS) {
    double d = fval(SELF);
    switch ((int)(intptr_t)fn->data) {
    case OP_UNARY_NEGATIVE: return val_float(-d);
    case OP_UNARY_POSITIVE: return val_float(d);
    default: return val_float(fabs(d));
    }
}
static Value float_is_integer(ARGS) {
    double d = fval(SELF);
    return val_bool(isfinite(d) && d == floor(d));
}
static Value float_round_fn(ARGS) {
    if (native_check_args(vm, "__round__", argc, kw, 1, 2) < 0) return val_null();
    double x = fval(SELF);
    if (argc == 1 || val_is_none(argv[1])) {
        if (isnan(x)) return vm_raise(vm, vm->e_ValueError, "cannot convert float NaN to integer");
        if (isinf(x)) return vm_raise(vm, vm->e_OverflowError, "cannot convert float infinity to integer");
        return bigint_from_double(vm, nearbyint(x));
    }
    int64_t nd;
    if (vm_index(vm, argv[1], &nd) < 0) return val_null();
    return val_float(float_round(x, nd));
}
static Value float_getnewargs(ARGS) {
    TupleObj *t = tuple_pack(vm, 1, val_float(fval(SELF)));
    return t ? val_obj(t) : val_null();
}
static Value float_as_integer_ratio(ARGS) {
    double d = fval(SELF);
    if (!isfinite(d))
        return vm_raise(vm, isnan(d) ? vm->e_ValueError : vm->e_OverflowError,
                        isnan(d) ? "cannot convert NaN to integer ratio" : "cannot convert Infinity to integer ratio");
    int e;
    double m = frexp(d, &e);
    for (int i = 0; i < 300 && m != floor(m); i++) {
        m *= 2.0;
        e--;
    }
    mpz_t num, den;
    mpz_init_set_d(num, m);
    mpz_init_set_ui(den, 1);
    if (e > 0) mpz_mul_2exp(num, num, (mp_bitcnt_t)e);
    else mpz_mul_2exp(den, den, (mp_bitcnt_t)-e);
    Value n = bigint_from_mpz(vm, num);
    Value r = val_null();
    if (!val_is_null(n)) {
        vm_push_root(vm, n);
        Value dv = bigint_from_mpz(vm, den);
        if (!val_is_null(dv)) {
            TupleObj *t = tuple_pack(vm, 2, n, dv);
            if (t) r = val_obj(t);
        }
        vm_pop_root(vm);
    }
    mpz_clears(num, den, NULL);
    return r;
}
static Value float_hex(ARGS) {
    double d = fval(SELF);
    char buf[64];
    if (isnan(d) || isinf(d)) {
        float_repr(d, buf, sizeof buf);
    } else if (d == 0) {
        snprintf(buf, sizeof buf, "%s0x0.0p+0", signbit(d) ? "-" : "");
    } else {
        /* CPython's layout: |d| = 0x1.<13 hex digits> * 2**E, subnormals as 0x0.<...>p-1022 */
        int e;
        double m = frexp(fabs(d), &e);   /* |d| = m * 2**e, m in [0.5, 1) */
        int E = e - 1;
        if (E < DBL_MIN_EXP - 1) {
            E = DBL_MIN_EXP - 1;
            m = ldexp(fabs(d), -E);
        } else {
            m *= 2;
        }
        int lead = (int)m;
        m -= lead;
        char digits[14];
        for (int i = 0; i < 13; i++) {
            m *= 16;
            int dg = (int)m;
            m -= dg;
            digits[i] = "0123456789abcdef"[dg];
        }
        digits[13] = 0;
        snprintf(buf, sizeof buf, "%s0x%d.%sp%+d", d < 0 ? "-" : "", lead, digits, E);
    }
    StrObj *s = str_from_c(vm, buf);
    return s ? val_obj(s) : val_null();
}
static Value float_fromhex(ARGS) {
    if (native_check_args(vm, "fromhex", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "fromhex() argument must be str, not %s", vm_type_name(vm, argv[1]));
    const char *s = AS_STR(argv[1])->data;
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    char *end;
    /* strtod reads C99 hex floats ("0x1.8p3", with or without "0x") correctly rounded */
    char buf[512];
    const char *p = s;
    int k = 0;
    if (*p == '+' || *p == '-') buf[k++] = *p++;
    if (!(p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) && strncasecmp(p, "inf", 3) != 0 && strncasecmp(p, "nan", 3) != 0) {
        buf[k++] = '0';
        buf[k++] = 'x';
    }
    snprintf(buf + k, sizeof buf - (size_t)k, "%s", p);
    double d = strtod(buf, &end);
    while (*end == ' ' || *end == '\t' || *end == '\n') end++;
    if (end == buf || *end) return vm_raise(vm, vm->e_ValueError, "invalid hexadecimal floating-point string");
    if (isinf(d) && strncasecmp(p, "inf", 3) != 0) return vm_raise(vm, vm->e_OverflowError, "hexadecimal value too large to represent as a float");
    Value r = val_float(d);
    if (AS_TYPE(argv[0]) == vm->t_float) return r;
    return vm_call1(vm, argv[0], r);
}
static Value float_pow_dunder(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 2, 3) < 0) return val_null();
    if (argc == 3 && !val_is_none(argv[2]))
        return vm_raise(vm, vm->e_TypeError, "pow() 3rd argument not allowed unless all arguments are integers");
    if (!other_ok(argv[0], argv[1], true)) return vm->not_implemented;
    bool reflected = (intptr_t)fn->data & NUM_REFLECTED;
    Value out;
    int r = reflected ? num_binary_ex(vm, BINOP_POWER, argv[1], argv[0], &out, true)
                      : num_binary_ex(vm, BINOP_POWER, argv[0], argv[1], &out, true);
    return r < 0 ? val_null() : out;
}
static Value float_get_real(VM *vm, Value s, void *c) { return val_float(fval(s)); }
static Value float_get_imag(VM *vm, Value s, void *c) { return val_float(0.0); }

/* ---- float-subclass instances --------------------------------------------------------------------- */

static void floatobj_trace(VM *vm, Obj *o) { gc_mark(vm, ((FloatObj *)o)->dict); }
static Value floatobj_alloc(VM *vm, TypeObj *t) {
    FloatObj *o = float_subclass_alloc(vm, t);
    return o ? val_obj(o) : val_null();
}
static FloatObj *float_subclass_alloc(VM *vm, TypeObj *t) {
    return gc_alloc(vm, t, t->instance_size > sizeof(FloatObj) ? t->instance_size : sizeof(FloatObj));
}

/* ---- tables ---------------------------------------------------------------------------------------- */

#define NUM_BINOP(name, op, fl) {"__" name "__", num_binop_dunder, NATIVEF_METHOD, (void *)(intptr_t)((op) | (fl))}, \
        {"__r" name "__", num_binop_dunder, NATIVEF_METHOD, (void *)(intptr_t)((op) | NUM_REFLECTED | (fl))}
#define NUM_CMPOP(name, op, fl) {"__" name "__", num_binop_dunder, NATIVEF_METHOD, (void *)(intptr_t)((op) | NUM_CMP | (fl))}
#define NUM_COMMON_DUNDERS(fl) \
    NUM_BINOP("add", BINOP_ADD, fl), NUM_BINOP("sub", BINOP_SUBTRACT, fl), NUM_BINOP("mul", BINOP_MULTIPLY, fl), \
    NUM_BINOP("truediv", BINOP_TRUE_DIVIDE, fl), NUM_BINOP("floordiv", BINOP_FLOOR_DIVIDE, fl), \
    NUM_BINOP("mod", BINOP_REMAINDER, fl), \
    NUM_CMPOP("eq", CMP_EQ, fl), NUM_CMPOP("ne", CMP_NE, fl), NUM_CMPOP("lt", CMP_LT, fl), NUM_CMPOP("le", CMP_LE, fl), \
    NUM_CMPOP("gt", CMP_GT, fl), NUM_CMPOP("ge", CMP_GE, fl), \
    {"__divmod__", num_divmod_dunder, NATIVEF_METHOD, (void *)(intptr_t)(fl)}, \
    {"__rdivmod__", num_divmod_dunder, NATIVEF_METHOD, (void *)(intptr_t)(NUM_REFLECTED | (fl))}

void num_init_types(VM *vm) {
    static const MethodDef im[] = {
        {"__new__", int_new, NATIVEF_STATIC}, {"__index__", int_self_fn, NATIVEF_METHOD | ARITY_NOARGS},
        {"__int__", int_self_fn, NATIVEF_METHOD | ARITY_NOARGS}, {"__float__", int_float, NATIVEF_METHOD | ARITY_NOARGS},
        {"__trunc__", int_self_fn, NATIVEF_METHOD | ARITY_NOARGS}, {"__floor__", int_self_fn, NATIVEF_METHOD | ARITY_NOARGS},
        {"__ceil__", int_self_fn, NATIVEF_METHOD | ARITY_NOARGS}, {"conjugate", int_self_fn, NATIVEF_METHOD | ARITY_NOARGS},
        {"__abs__", int_unary, NATIVEF_METHOD | ARITY_NOARGS, (void *)(intptr_t)-1},
        {"__neg__", int_unary, NATIVEF_METHOD | ARITY_NOARGS, (void *)(intptr_t)OP_UNARY_NEGATIVE},
        {"__pos__", int_unary, NATIVEF_METHOD | ARITY_NOARGS, (void *)(intptr_t)OP_UNARY_POSITIVE},
        {"__invert__", int_unary, NATIVEF_METHOD | ARITY_NOARGS, (void *)(intptr_t)OP_UNARY_INVERT},
        {"__repr__", int_repr, NATIVEF_METHOD | ARITY_NOARGS}, {"__bool__", int_bool, NATIVEF_METHOD | ARITY_NOARGS},
        {"__hash__", int_hash, NATIVEF_METHOD | ARITY_NOARGS}, {"__format__", int_format, NATIVEF_METHOD},
        {"__round__", int_round, NATIVEF_METHOD}, {"__sizeof__", int_sizeof, NATIVEF_METHOD | ARITY_NOARGS},
        {"__getnewargs__", int_getnewargs, NATIVEF_METHOD | ARITY_NOARGS},
        {"bit_length", int_bit_length, NATIVEF_METHOD | ARITY_NOARGS}, {"bit_count", int_bit_count, NATIVEF_METHOD | ARITY_NOARGS},
        {"to_bytes", int_to_bytes, NATIVEF_METHOD}, {"from_bytes", int_from_bytes, NATIVEF_CLASSMETHOD},
        {"as_integer_ratio", int_as_integer_ratio, NATIVEF_METHOD | ARITY_NOARGS},
        NUM_COMMON_DUNDERS(0),
        {"__pow__", int_pow_dunder, NATIVEF_METHOD, NULL}, {"__rpow__", int_pow_dunder, NATIVEF_METHOD, (void *)(intptr_t)NUM_REFLECTED},
        NUM_BINOP("and", BINOP_AND, 0), NUM_BINOP("or", BINOP_OR, 0), NUM_BINOP("xor", BINOP_XOR, 0),
        NUM_BINOP("lshift", BINOP_LSHIFT, 0), NUM_BINOP("rshift", BINOP_RSHIFT, 0), {NULL}};
    static const GetSetDef igs[] = {
        {"real", int_get_real, NULL}, {"imag", int_get_imag, NULL}, {"numerator", int_get_real, NULL},
        {"denominator", int_get_den, NULL}, {NULL}};
    static const MethodDef fm[] = {
        {"__new__", float_new, NATIVEF_STATIC | ARITY_POS(0, 1)}, {"__int__", float_int, NATIVEF_METHOD | ARITY_NOARGS},
        {"__trunc__", float_int, NATIVEF_METHOD | ARITY_NOARGS}, {"__floor__", float_floor, NATIVEF_METHOD | ARITY_NOARGS},
        {"__ceil__", float_ceil, NATIVEF_METHOD | ARITY_NOARGS},
        {"__float__", float_float, NATIVEF_METHOD | ARITY_NOARGS}, {"conjugate", float_float, NATIVEF_METHOD | ARITY_NOARGS},
        {"__abs__", float_unary, NATIVEF_METHOD | ARITY_NOARGS, (void *)(intptr_t)-1},
        {"__neg__", float_unary, NATIVEF_METHOD | ARITY_NOARGS, (void *)(intptr_t)OP_UNARY_NEGATIVE},
        {"__pos__", float_unary, NATIVEF_METHOD | ARITY_NOARGS, (void *)(intptr_t)OP_UNARY_POSITIVE},
        {"__repr__", float_repr_fn, NATIVEF_METHOD | ARITY_NOARGS}, {"__bool__", float_bool, NATIVEF_METHOD | ARITY_NOARGS},
        {"__hash__", float_hash, NATIVEF_METHOD | ARITY_NOARGS}, {"__format__", float_format, NATIVEF_METHOD},
        {"__round__", float_round_fn, NATIVEF_METHOD}, {"__getnewargs__", float_getnewargs, NATIVEF_METHOD | ARITY_NOARGS},
        {"is_integer", float_is_integer, NATIVEF_METHOD | ARITY_NOARGS},
        {"as_integer_ratio", float_as_integer_ratio, NATIVEF_METHOD | ARITY_NOARGS},
        {"hex", float_hex, NATIVEF_METHOD | ARITY_NOARGS}, {"fromhex", float_fromhex, NATIVEF_CLASSMETHOD},
        NUM_COMMON_DUNDERS(NUM_FLOAT),
        {"__pow__", float_pow_dunder, NATIVEF_METHOD, (void *)(intptr_t)NUM_FLOAT},
        {"__rpow__", float_pow_dunder, NATIVEF_METHOD, (void *)(intptr_t)(NUM_REFLECTED | NUM_FLOAT)}, {NULL}};
    static const GetSetDef fgs[] = {{"real", float_get_real, NULL}, {"imag", float_get_imag, NULL}, {NULL}};
    static const MethodDef bm[] = {{"__new__", bool_new, NATIVEF_STATIC | ARITY_POS(0, 1)},
                                   {"__repr__", bool_repr, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    bigint_init_type(vm);
    TypeObj *ft = vm->t_float;
    ft->layout = OBJ_LAYOUT_FLOAT;
    ft->instance_size = sizeof(FloatObj);
    ft->trace = floatobj_trace;
    ft->alloc = floatobj_alloc;
    ft->flags |= TYPEF_BASETYPE;
    if (type_add_methods(vm, vm->t_int, im) < 0 || type_add_getsets(vm, vm->t_int, igs) < 0 ||
        type_add_methods(vm, vm->t_float, fm) < 0 || type_add_getsets(vm, vm->t_float, fgs) < 0 ||
        type_add_methods(vm, vm->t_bool, bm) < 0)
        EM_UNREACHABLE();
}
