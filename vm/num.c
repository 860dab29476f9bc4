/* vm/num.c — arithmetic on int, float and bool values with Python's semantics.  Ints take the
 * int64 path first; a result that does not fit, or an operand that is already big, goes to the
 * GMP path in vm/bigint.c.  Comparisons between ints and floats are exact, as CPython's. */
#include "vm/num.h"

#include "vm/bigint.h"

#include <math.h>

static bool small_exact_double(int64_t x);

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static int64_t floor_mod(int64_t a, int64_t b) {
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
}

/* 1: *out set; 2: overflows int64 (the caller goes to the big-int path); -1: error. */
static int int_pow(VM *vm, int64_t base, int64_t exp, Value *out) {
    if (exp < 0) {
        if (base == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "0.0 cannot be raised to a negative power");
            return -1;
        }
        if (!small_exact_double(base) || !small_exact_double(exp)) return 2;
        *out = val_float(pow((double)base, (double)exp));
        return 1;
    }
    int64_t r = 1, b = base;
    while (exp) {
        if (exp & 1) {
            if (__builtin_mul_overflow(r, b, &r)) goto ovf;
        }
        exp >>= 1;
        if (exp && __builtin_mul_overflow(b, b, &b)) goto ovf;
    }
    *out = val_int(r);
    return 1;
ovf:
    return 2;
}

static int float_op(VM *vm, int op, double x, double y, Value *out) {
    switch (op) {
    case BINOP_ADD: *out = val_float(x + y); return 1;
    case BINOP_SUBTRACT: *out = val_float(x - y); return 1;
    case BINOP_MULTIPLY: *out = val_float(x * y); return 1;
    case BINOP_TRUE_DIVIDE:
        if (y == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "float division by zero");
            return -1;
        }
        *out = val_float(x / y);
        return 1;
    case BINOP_FLOOR_DIVIDE: {
        if (y == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "float floor division by zero");
            return -1;
        }
        double mod = fmod(x, y);
        double div = (x - mod) / y;
        if (mod && ((y < 0) != (mod < 0))) div -= 1.0;
        double fl = floor(div);
        if (div - fl > 0.5) fl += 1.0;
        *out = val_float(div ? fl : copysign(0.0, x / y));
        return 1;
    }
    case BINOP_REMAINDER: {
        if (y == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "float modulo");
            return -1;
        }
        double mod = fmod(x, y);
        if (mod) {
            if ((y < 0) != (mod < 0)) mod += y;
        } else {
            mod = copysign(0.0, y);
        }
        *out = val_float(mod);
        return 1;
    }
    case BINOP_POWER:
        if (x == 0 && y < 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "0.0 cannot be raised to a negative power");
            return -1;
        }
        if (x < 0 && y != floor(y) && isfinite(y)) {
            /* a negative number to a fractional power is complex (CPython's float_pow) */
            *out = complex_float_power(vm, x, y);
            return val_is_null(*out) ? -1 : 1;
        }
        *out = val_float(pow(x, y));
        if (isinf(out->as.f) && isfinite(x) && isfinite(y)) {
            vm_raise(vm, vm->e_OverflowError, "(34, 'Numerical result out of range')");
            return -1;
        }
        return 1;
    default:
        return 0;
    }
}

/* The operand kinds num_binary handles itself.  `sub`: also instances of int and float
 * subclasses (the int/float dunders pass it; the operators do not, so a subclass's own dunders
 * come first). */
enum { NK_NO, NK_SMALL, NK_BIG, NK_FLOAT };
static inline int num_kind(VM *vm, Value v, bool sub) {
    switch (v.tag) {
    case VAL_INT: case VAL_BOOL: return NK_SMALL;
    case VAL_FLOAT: return NK_FLOAT;
    case VAL_OBJ: {
        TypeObj *t = v.as.o->type;
        if (t == vm->t_int || (sub && t->layout == OBJ_LAYOUT_INT)) return NK_BIG;
        if (sub && t->layout == OBJ_LAYOUT_FLOAT) return NK_FLOAT;
        return NK_NO;
    }
    default: return NK_NO;
    }
}

/* A numeric operand as a double (ints correctly rounded; OverflowError for huge ints). */
static int operand_double(VM *vm, Value v, double *out) {
    if (v.tag == VAL_FLOAT) { *out = v.as.f; return 0; }
    if (v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_FLOAT) { *out = ((FloatObj *)v.as.o)->v; return 0; }
    return bigint_to_double(vm, v, out);
}

static bool small_exact_double(int64_t x) { return x >= -(INT64_C(1) << 53) && x <= (INT64_C(1) << 53); }

int num_binary_ex(VM *vm, int op, Value a, Value b, Value *out, bool sub) {
    int ka = num_kind(vm, a, sub), kb = num_kind(vm, b, sub);
    if (!ka || !kb) return 0;
    if (op >= BINOP_INPLACE) op -= BINOP_INPLACE;
    if (ka == NK_FLOAT || kb == NK_FLOAT) {
        if (op == BINOP_AND || op == BINOP_OR || op == BINOP_XOR || op == BINOP_LSHIFT ||
            op == BINOP_RSHIFT || op == BINOP_MATMUL)
            return 0;
        double x, y;
        if (operand_double(vm, a, &x) < 0 || operand_double(vm, b, &y) < 0) return -1;
        return float_op(vm, op, x, y, out);
    }
    if (ka == NK_BIG || kb == NK_BIG) return bigint_binary(vm, op, a, b, out);
    int64_t x = val_as_intlike(a), y = val_as_intlike(b), r;
    bool both_bool = a.tag == VAL_BOOL && b.tag == VAL_BOOL;
    switch (op) {
    case BINOP_ADD:
        if (__builtin_add_overflow(x, y, &r)) goto big;
        break;
    case BINOP_SUBTRACT:
        if (__builtin_sub_overflow(x, y, &r)) goto big;
        break;
    case BINOP_MULTIPLY:
        if (__builtin_mul_overflow(x, y, &r)) goto big;
        break;
    case BINOP_TRUE_DIVIDE:
        if (y == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "division by zero");
            return -1;
        }
        /* beyond 2**53 the operands themselves would round: divide exactly */
        if (!small_exact_double(x) || !small_exact_double(y)) goto big;
        *out = val_float((double)x / (double)y);
        return 1;
    case BINOP_FLOOR_DIVIDE:
        if (y == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "integer division or modulo by zero");
            return -1;
        }
        if (x == INT64_MIN && y == -1) goto big;
        r = floor_div(x, y);
        break;
    case BINOP_REMAINDER:
        if (y == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "integer modulo by zero");
            return -1;
        }
        r = y == -1 ? 0 : floor_mod(x, y);
        break;
    case BINOP_POWER: {
        int rc = int_pow(vm, x, y, out);
        if (rc == 2) goto big;
        return rc;
    }
    case BINOP_AND:
        r = x & y;
        if (both_bool) { *out = val_bool(r); return 1; }
        break;
    case BINOP_OR:
        r = x | y;
        if (both_bool) { *out = val_bool(r); return 1; }
        break;
    case BINOP_XOR:
        r = x ^ y;
        if (both_bool) { *out = val_bool(r); return 1; }
        break;
    case BINOP_LSHIFT:
        if (y < 0) {
            vm_raise(vm, vm->e_ValueError, "negative shift count");
            return -1;
        }
        if (x == 0) { r = 0; break; }
        if (y >= 63 || (x > 0 ? x > (INT64_MAX >> y) : x < (INT64_MIN >> y))) goto big;
        r = (int64_t)((uint64_t)x << y);
        break;
    case BINOP_RSHIFT:
        if (y < 0) {
            vm_raise(vm, vm->e_ValueError, "negative shift count");
            return -1;
        }
        r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
        break;
    default:
        return 0;
    }
    *out = val_int(r);
    return 1;
big:
    return bigint_binary(vm, op, a, b, out);
}

int num_binary(VM *vm, int op, Value a, Value b, Value *out) { return num_binary_ex(vm, op, a, b, out, false); }

static bool cmp_doubles(double x, double y, CompareOp op) {
    switch (op) {
    case CMP_LT: return x < y;
    case CMP_LE: return x <= y;
    case CMP_EQ: return x == y;
    case CMP_NE: return x != y;
    case CMP_GT: return x > y;
    default: return x >= y;
    }
}

static CompareOp cmp_swap(CompareOp op) {
    static const CompareOp sw[6] = {CMP_GT, CMP_GE, CMP_EQ, CMP_NE, CMP_LT, CMP_LE};
    return sw[op];
}

bool num_compare_ex(VM *vm, Value a, Value b, CompareOp op, bool *ok, bool sub) {
    int ka = num_kind(vm, a, sub), kb = num_kind(vm, b, sub);
    if (!ka || !kb) {
        *ok = false;
        return false;
    }
    *ok = true;
    if (ka != NK_FLOAT && kb != NK_FLOAT) {
        int c;
        if (ka == NK_SMALL && kb == NK_SMALL) {
            int64_t x = val_as_intlike(a), y = val_as_intlike(b);
            c = (x > y) - (x < y);
        } else {
            c = bigint_cmp(a, b);
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
    double x = 0, y = 0;
    if (ka == NK_FLOAT && kb == NK_FLOAT) {
        operand_double(vm, a, &x);
        operand_double(vm, b, &y);
        return cmp_doubles(x, y, op);
    }
    /* int vs float: exactly, never by rounding the int (CPython's float_richcompare) */
    if (ka == NK_FLOAT) {
        operand_double(vm, a, &x);
        if (kb == NK_SMALL && small_exact_double(val_as_intlike(b))) return cmp_doubles(x, (double)val_as_intlike(b), op);
        return bigint_cmp_double(b, x, cmp_swap(op));
    }
    operand_double(vm, b, &y);
    if (ka == NK_SMALL && small_exact_double(val_as_intlike(a))) return cmp_doubles((double)val_as_intlike(a), y, op);
    return bigint_cmp_double(a, y, op);
}

bool num_compare(VM *vm, Value a, Value b, CompareOp op, bool *ok) { return num_compare_ex(vm, a, b, op, ok, false); }
