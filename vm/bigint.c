/* vm/bigint.c — big ints on GMP: the IntObj heap kind (big ints and int-subclass instances),
 * canonicalisation back to unboxed ints, arithmetic with CPython's semantics (floor division,
 * two's-complement bit operations on negatives, correctly rounded true division and float
 * conversion), exact int/float comparison, CPython's int hash, and conversion to and from text
 * with CPython 3.11's digit limit.  The representation is described in vm/bigint.h. */
#include "vm/bigint.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/gc.h"
#include "vm/str.h"
#include "vm/type.h"

/* A result wider than this many bits is refused with MemoryError up front (CPython would try
 * and exhaust memory or time; 2**36 bits is 8 GiB). */
#define BIGINT_MAX_BITS (INT64_C(1) << 36)

/* ---- the object ----------------------------------------------------------------------------- */

static void intobj_trace(VM *vm, Obj *o) { gc_mark(vm, ((IntObj *)o)->dict); }

static void intobj_finalize(VM *vm, Obj *o) {
    (void)vm;
    IntObj *i = (IntObj *)o;
    /* a zeroed mpz (object freed before its value was set) owns no limbs */
    if (i->z->_mp_alloc) mpz_clear(i->z);
}

/* Count the limbs an IntObj owns in its size, so the collector's pacing sees them. */
static void account_limbs(VM *vm, IntObj *o) {
    size_t extra = (size_t)o->z->_mp_alloc * sizeof(mp_limb_t);
    if (extra > UINT32_MAX - o->hdr.size) extra = UINT32_MAX - o->hdr.size;
    o->hdr.size += (uint32_t)extra;
    vm->bytes_allocated += extra;
}

Value bigint_new_obj(VM *vm, TypeObj *t, const mpz_t z) {
    IntObj *o = gc_alloc(vm, t, t->instance_size > sizeof(IntObj) ? t->instance_size : sizeof(IntObj));
    if (!o) return val_null();
    mpz_init_set(o->z, z);
    account_limbs(vm, o);
    return val_obj(o);
}

/* object.__new__ for int layouts (int.__new__ sets the value afterwards). */
static Value intobj_alloc(VM *vm, TypeObj *t) {
    mpz_t z;
    mpz_init(z);
    Value v = bigint_new_obj(vm, t, z);
    mpz_clear(z);
    return v;
}

Value bigint_from_mpz(VM *vm, const mpz_t z) {
    if (mpz_fits_slong_p(z)) return val_int(mpz_get_si(z));
    return bigint_new_obj(vm, vm->t_int, z);
}

Value bigint_from_u64(VM *vm, uint64_t u) {
    if (u <= (uint64_t)INT64_MAX) return val_int((int64_t)u);
    mpz_t z;
    mpz_init_set_ui(z, u);
    Value v = bigint_new_obj(vm, vm->t_int, z);
    mpz_clear(z);
    return v;
}

bool bigint_check(VM *vm, Value v) {
    (void)vm;
    return v.tag == VAL_INT || v.tag == VAL_BOOL || val_is_intobj(v);
}

void bigint_load(Value v, mpz_t out) {
    if (v.tag == VAL_INT) mpz_set_si(out, v.as.i);
    else if (v.tag == VAL_BOOL) mpz_set_ui(out, v.as.b ? 1 : 0);
    else mpz_set(out, AS_INTOBJ(v)->z);
}

/* A read-only view of an int's value: the IntObj's own mpz, or tmp loaded with a small one. */
static mpz_srcptr view(Value v, mpz_t tmp) {
    if (val_is_intobj(v)) return AS_INTOBJ(v)->z;
    bigint_load(v, tmp);
    return tmp;
}

int bigint_to_mpz(VM *vm, Value v, mpz_t out) {
    if (!bigint_check(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, v));
        return -1;
    }
    bigint_load(v, out);
    return 0;
}

int bigint_index_mpz(VM *vm, Value v, mpz_t out) {
    if (bigint_check(vm, v)) {
        bigint_load(v, out);
        return 0;
    }
    Value f = type_special(vm, vm_type_of(vm, v), SP_INDEX);
    if (val_is_null(f)) {
        vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, v));
        return -1;
    }
    Value r = vm_call_special(vm, v, SP_INDEX, 0, NULL);
    if (val_is_null(r)) return -1;
    if (!bigint_check(vm, r)) {
        vm_raise(vm, vm->e_TypeError, "__index__ returned non-int (type %s)", vm_type_name(vm, r));
        return -1;
    }
    bigint_load(r, out);
    return 0;
}

int bigint_as_i64(VM *vm, Value v, int64_t *out) {
    if (v.tag == VAL_INT || v.tag == VAL_BOOL) {
        *out = val_as_intlike(v);
        return 0;
    }
    if (!val_is_intobj(v)) {
        vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, v));
        return -1;
    }
    if (!mpz_fits_slong_p(AS_INTOBJ(v)->z)) {
        vm_raise(vm, vm->e_OverflowError, "Python int too large to convert to C long");
        return -1;
    }
    *out = mpz_get_si(AS_INTOBJ(v)->z);
    return 0;
}

bool bigint_truthy(Value v) {
    if (v.tag == VAL_INT || v.tag == VAL_BOOL) return val_as_intlike(v) != 0;
    return mpz_sgn(AS_INTOBJ(v)->z) != 0;
}

int64_t bigint_bit_length(VM *vm, Value v) {
    (void)vm;
    if (v.tag == VAL_INT || v.tag == VAL_BOOL) {
        int64_t x = val_as_intlike(v);
        uint64_t m = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
        return m ? 64 - __builtin_clzll(m) : 0;
    }
    mpz_srcptr z = AS_INTOBJ(v)->z;
    return mpz_sgn(z) ? (int64_t)mpz_sizeinbase(z, 2) : 0;
}

/* ---- floats ----------------------------------------------------------------------------------- */

/* |z| as a double rounded half-even, and whether it overflowed.  z != 0. */
static double mpz_abs_to_double(mpz_srcptr z, bool *overflow) {
    *overflow = false;
    size_t n = mpz_sizeinbase(z, 2);
    if (n <= DBL_MANT_DIG) return fabs(mpz_get_d(z));
    if (n > DBL_MAX_EXP) {
        *overflow = true;
        return 0;
    }
    /* the top DBL_MANT_DIG + 2 bits, the lowest of them or'ed with every bit below (sticky),
     * then round half-even to DBL_MANT_DIG bits: the conversion of that is exact */
    size_t shift = n - (DBL_MANT_DIG + 2);
    mpz_t q;
    mpz_init(q);
    mpz_tdiv_q_2exp(q, z, shift);
    uint64_t x = mpz_get_ui(q);   /* |z| >> shift: get_ui reads the magnitude */
    mpz_clear(q);
    if (mpz_scan1(z, 0) < shift) x |= 1;
    if ((x & 2) && (x & 5)) x += 4;
    x &= ~(uint64_t)3;
    double d = ldexp((double)x, (int)shift);
    if (isinf(d)) *overflow = true;
    return d;
}

int bigint_to_double(VM *vm, Value v, double *out) {
    if (v.tag == VAL_INT || v.tag == VAL_BOOL) {
        *out = (double)val_as_intlike(v);
        return 0;
    }
    return bigint_mpz_to_double(vm, AS_INTOBJ(v)->z, out);
}

int bigint_mpz_to_double(VM *vm, const mpz_t z, double *out) {
    if (mpz_sgn(z) == 0) {
        *out = 0.0;
        return 0;
    }
    bool ovf;
    double d = mpz_abs_to_double(z, &ovf);
    if (ovf) {
        vm_raise(vm, vm->e_OverflowError, "int too large to convert to float");
        return -1;
    }
    *out = mpz_sgn(z) < 0 ? -d : d;
    return 0;
}

Value bigint_from_double(VM *vm, double d) {
    if (isnan(d)) return vm_raise(vm, vm->e_ValueError, "cannot convert float NaN to integer");
    if (isinf(d)) return vm_raise(vm, vm->e_OverflowError, "cannot convert float infinity to integer");
    double t = trunc(d);
    if (t >= -9.2233720368547758e18 && t < 9.2233720368547758e18) return val_int((int64_t)t);
    mpz_t z;
    mpz_init_set_d(z, t);
    Value r = bigint_from_mpz(vm, z);
    mpz_clear(z);
    return r;
}

/* a / b correctly rounded (CPython's long_true_divide): b != 0. */
static int true_divide(VM *vm, mpz_srcptr a, mpz_srcptr b, double *out) {
    bool neg = (mpz_sgn(a) < 0) != (mpz_sgn(b) < 0);
    size_t abits = mpz_sgn(a) ? mpz_sizeinbase(a, 2) : 0, bbits = mpz_sizeinbase(b, 2);
    if (abits <= DBL_MANT_DIG && bbits <= DBL_MANT_DIG) {
        /* both exact as doubles: one IEEE division rounds correctly */
        *out = mpz_get_d(a) / mpz_get_d(b);
        return 0;
    }
    if (abits == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    long diff = (long)abits - (long)bbits;
    if (diff > DBL_MAX_EXP) goto overflow;
    if (diff < DBL_MIN_EXP - DBL_MANT_DIG - 1) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    /* x = |a| * 2**-shift // |b| has DBL_MANT_DIG + 2 or + 3 bits (fewer for subnormals);
     * the bits shifted or divided away are kept as one sticky bit */
    long shift = (diff > DBL_MIN_EXP ? diff : DBL_MIN_EXP) - DBL_MANT_DIG - 2;
    bool inexact = false;
    mpz_t x, r;
    mpz_inits(x, r, NULL);
    mpz_abs(x, a);
    if (shift <= 0) {
        mpz_mul_2exp(x, x, (mp_bitcnt_t)-shift);
    } else {
        if (mpz_scan1(x, 0) < (mp_bitcnt_t)shift) inexact = true;
        mpz_tdiv_q_2exp(x, x, (mp_bitcnt_t)shift);
    }
    mpz_abs(r, b);
    mpz_tdiv_qr(x, r, x, r);
    if (mpz_sgn(r)) inexact = true;
    long xbits = (long)mpz_sizeinbase(x, 2);
    uint64_t q = mpz_get_ui(x);
    mpz_clears(x, r, NULL);
    long extra = (xbits > DBL_MIN_EXP - shift ? xbits : DBL_MIN_EXP - shift) - DBL_MANT_DIG;
    uint64_t mask = (uint64_t)1 << (extra - 1);
    uint64_t low = q | (inexact ? 1 : 0);
    if ((low & mask) && (low & (3 * mask - 1))) q += mask;
    q &= ~(2 * mask - 1);
    double dx = (double)q;
    if (shift + xbits >= DBL_MAX_EXP && (shift + xbits > DBL_MAX_EXP || dx == ldexp(1.0, (int)xbits)))
        goto overflow;
    double res = ldexp(dx, (int)shift);
    *out = neg ? -res : res;
    return 0;
overflow:
    vm_raise(vm, vm->e_OverflowError, "integer division result too large for a float");
    return -1;
}

/* ---- arithmetic ------------------------------------------------------------------------------- */

static int too_big(VM *vm) {
    vm_no_memory(vm);
    return -1;
}

static Value float_power(VM *vm, mpz_srcptr a, mpz_srcptr b) {
    /* int ** negative int is float(a) ** float(b), as CPython's long_pow */
    bool ovf;
    double x = 0, y;
    if (mpz_sgn(a)) {
        x = mpz_abs_to_double(a, &ovf);
        if (ovf) return vm_raise(vm, vm->e_OverflowError, "int too large to convert to float");
        if (mpz_sgn(a) < 0) x = -x;
    }
    y = -mpz_abs_to_double(b, &ovf);
    if (ovf) return vm_raise(vm, vm->e_OverflowError, "int too large to convert to float");
    if (x == 0) return vm_raise(vm, vm->e_ZeroDivisionError, "0.0 cannot be raised to a negative power");
    double r = pow(x, y);
    if (isinf(r)) return vm_raise(vm, vm->e_OverflowError, "(34, 'Numerical result out of range')");
    return val_float(r);
}

int bigint_binary(VM *vm, int op, Value a, Value b, Value *out) {
    mpz_t ta, tb, r;
    mpz_inits(ta, tb, r, NULL);
    mpz_srcptr x = view(a, ta), y = view(b, tb);
    int rc = 1;
    switch (op) {
    case BINOP_ADD: mpz_add(r, x, y); break;
    case BINOP_SUBTRACT: mpz_sub(r, x, y); break;
    case BINOP_MULTIPLY:
        if (mpz_sgn(x) && mpz_sgn(y) && (int64_t)(mpz_sizeinbase(x, 2) + mpz_sizeinbase(y, 2)) > BIGINT_MAX_BITS) {
            rc = too_big(vm);
            break;
        }
        mpz_mul(r, x, y);
        break;
    case BINOP_FLOOR_DIVIDE:
        if (!mpz_sgn(y)) {
            vm_raise(vm, vm->e_ZeroDivisionError, "integer division or modulo by zero");
            rc = -1;
            break;
        }
        mpz_fdiv_q(r, x, y);
        break;
    case BINOP_REMAINDER:
        if (!mpz_sgn(y)) {
            vm_raise(vm, vm->e_ZeroDivisionError, "integer modulo by zero");
            rc = -1;
            break;
        }
        mpz_fdiv_r(r, x, y);
        break;
    case BINOP_TRUE_DIVIDE: {
        if (!mpz_sgn(y)) {
            vm_raise(vm, vm->e_ZeroDivisionError, "division by zero");
            rc = -1;
            break;
        }
        double d;
        if (true_divide(vm, x, y, &d) < 0) rc = -1;
        else *out = val_float(d);
        mpz_clears(ta, tb, r, NULL);
        return rc;
    }
    case BINOP_POWER: {
        if (mpz_sgn(y) < 0) {
            *out = float_power(vm, x, y);
            mpz_clears(ta, tb, r, NULL);
            return val_is_null(*out) ? -1 : 1;
        }
        if (mpz_cmpabs_ui(x, 1) <= 0) {
            /* 0, 1 and -1 to any power */
            if (!mpz_sgn(x)) mpz_set_ui(r, mpz_sgn(y) ? 0 : 1);
            else if (mpz_sgn(x) > 0 || mpz_even_p(y)) mpz_set_ui(r, 1);
            else mpz_set_si(r, -1);
            break;
        }
        if (!mpz_fits_ulong_p(y) || (double)mpz_get_ui(y) * (double)mpz_sizeinbase(x, 2) > (double)BIGINT_MAX_BITS) {
            rc = too_big(vm);
            break;
        }
        mpz_pow_ui(r, x, mpz_get_ui(y));
        break;
    }
    case BINOP_LSHIFT:
        if (mpz_sgn(y) < 0) {
            vm_raise(vm, vm->e_ValueError, "negative shift count");
            rc = -1;
            break;
        }
        if (!mpz_sgn(x)) break;
        if (!mpz_fits_slong_p(y)) {
            vm_raise(vm, vm->e_OverflowError, "too many digits in integer");
            rc = -1;
            break;
        }
        if (mpz_get_si(y) + (int64_t)mpz_sizeinbase(x, 2) > BIGINT_MAX_BITS) {
            rc = too_big(vm);
            break;
        }
        mpz_mul_2exp(r, x, (mp_bitcnt_t)mpz_get_si(y));
        break;
    case BINOP_RSHIFT:
        if (mpz_sgn(y) < 0) {
            vm_raise(vm, vm->e_ValueError, "negative shift count");
            rc = -1;
            break;
        }
        if (!mpz_fits_ulong_p(y) || mpz_get_ui(y) >= mpz_sizeinbase(x, 2)) mpz_set_si(r, mpz_sgn(x) < 0 ? -1 : 0);
        else mpz_fdiv_q_2exp(r, x, mpz_get_ui(y));
        break;
    /* GMP's and/ior/xor use two's-complement semantics on negatives, as Python does */
    case BINOP_AND: mpz_and(r, x, y); break;
    case BINOP_OR: mpz_ior(r, x, y); break;
    case BINOP_XOR: mpz_xor(r, x, y); break;
    default: rc = 0; break;
    }
    if (rc == 1) {
        *out = bigint_from_mpz(vm, r);
        if (val_is_null(*out)) rc = -1;
    }
    mpz_clears(ta, tb, r, NULL);
    return rc;
}

Value bigint_unary(VM *vm, int opcode, Value a) {
    mpz_t t, r;
    mpz_inits(t, r, NULL);
    mpz_srcptr x = view(a, t);
    switch (opcode) {
    case OP_UNARY_NEGATIVE: mpz_neg(r, x); break;
    case OP_UNARY_INVERT: mpz_com(r, x); break;
    case OP_UNARY_POSITIVE: mpz_set(r, x); break;
    default: mpz_abs(r, x); break;
    }
    Value v = bigint_from_mpz(vm, r);
    mpz_clears(t, r, NULL);
    return v;
}

int bigint_cmp(Value a, Value b) {
    if (!val_is_intobj(a) && !val_is_intobj(b)) {
        int64_t x = val_as_intlike(a), y = val_as_intlike(b);
        return (x > y) - (x < y);
    }
    mpz_t ta, tb;
    mpz_inits(ta, tb, NULL);
    int c = mpz_cmp(view(a, ta), view(b, tb));
    mpz_clears(ta, tb, NULL);
    return (c > 0) - (c < 0);
}

bool bigint_cmp_double(Value a, double d, CompareOp op) {
    int c;
    if (isnan(d)) return op == CMP_NE;
    if (isinf(d)) {
        c = d > 0 ? -1 : 1;
    } else {
        mpz_t t;
        mpz_init(t);
        c = mpz_cmp_d(view(a, t), d);   /* exact: GMP compares without rounding the int */
        mpz_clear(t);
        c = (c > 0) - (c < 0);
    }
    switch (op) {
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_EQ: return c == 0;
    case CMP_NE: return c != 0;
    case CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

int64_t bigint_hash(Value v) {
    if (!val_is_intobj(v)) return hash_int(val_as_intlike(v));
    /* CPython: |v| modulo 2**61 - 1 with v's sign; -1 is reserved for errors */
    mpz_srcptr z = AS_INTOBJ(v)->z;
    int64_t h = (int64_t)mpz_tdiv_ui(z, (UINT64_C(1) << 61) - 1);
    if (mpz_sgn(z) < 0) h = -h;
    return h == -1 ? -2 : h;
}

/* ---- text ------------------------------------------------------------------------------------- */

void bigint_digit_limit_error(VM *vm, int64_t ndigits) {
    if (ndigits >= 0)
        vm_raise(vm, vm->e_ValueError,
                 "Exceeds the limit (%lld digits) for integer string conversion: value has %lld digits; "
                 "use sys.set_int_max_str_digits() to increase the limit",
                 (long long)vm->int_max_str_digits, (long long)ndigits);
    else
        vm_raise(vm, vm->e_ValueError,
                 "Exceeds the limit (%lld digits) for integer string conversion; "
                 "use sys.set_int_max_str_digits() to increase the limit",
                 (long long)vm->int_max_str_digits);
}

char *bigint_digits(VM *vm, Value v, int base, bool *neg) {
    mpz_t t;
    mpz_init(t);
    mpz_srcptr z = view(v, t);
    *neg = mpz_sgn(z) < 0;
    int64_t lim = vm->int_max_str_digits;
    /* the limit applies to bases that are not powers of two (CPython: decimal only here) */
    if (base == 10 && lim > 0 && (int64_t)mpz_sizeinbase(z, 10) > lim + 1) {
        mpz_clear(t);
        bigint_digit_limit_error(vm, -1);
        return NULL;
    }
    char *s = malloc(mpz_sizeinbase(z, base) + 2);
    if (!s) {
        mpz_clear(t);
        vm_no_memory(vm);
        return NULL;
    }
    mpz_get_str(s, base, z);
    mpz_clear(t);
    char *d = *neg ? s + 1 : s;
    if (*neg) memmove(s, d, strlen(d) + 1);
    if (base == 10 && lim > 0 && (int64_t)strlen(s) > lim) {
        free(s);
        bigint_digit_limit_error(vm, -1);
        return NULL;
    }
    return s;
}

StrObj *bigint_to_str(VM *vm, Value v, int base) {
    if (!val_is_intobj(v) && base == 10) {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)val_as_intlike(v));
        return str_from_c(vm, buf);
    }
    bool neg;
    char *d = bigint_digits(vm, v, base, &neg);
    if (!d) return NULL;
    StrBuf b;
    sb_init(&b);
    if (neg) sb_addc(&b, '-');
    sb_adds(&b, d);
    free(d);
    return sb_finish(vm, &b);
}

Value bigint_parse_digits(VM *vm, const char *digits, int base, bool neg) {
    int64_t n = (int64_t)strlen(digits);
    int64_t lim = vm->int_max_str_digits;
    if ((base & (base - 1)) != 0 && lim > 0 && n > lim) {
        bigint_digit_limit_error(vm, n);
        return val_null();
    }
    mpz_t z;
    mpz_init(z);
    if (mpz_set_str(z, digits, base) != 0) {
        mpz_clear(z);
        return vm_raise(vm, vm->e_SystemError, "bigint_parse_digits: invalid digits");
    }
    if (neg) mpz_neg(z, z);
    Value r = bigint_from_mpz(vm, z);
    mpz_clear(z);
    return r;
}

void bigint_init_type(VM *vm) {
    TypeObj *t = vm->t_int;
    t->layout = OBJ_LAYOUT_INT;
    t->instance_size = sizeof(IntObj);
    t->trace = intobj_trace;
    t->finalize = intobj_finalize;
    t->alloc = intobj_alloc;
    t->flags |= TYPEF_BASETYPE;
    vm->int_max_str_digits = 4300;
}
