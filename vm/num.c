/* vm/num.c — arithmetic on int, float and bool values with Python's semantics.  Ints are
 * 64-bit: a result that does not fit raises OverflowError instead of wrapping. */
#include "vm/num.h"

#include <math.h>

static Value overflow(VM *vm) {
    return vm_raise(vm, vm->e_OverflowError, "integer overflow: Ember ints are 64-bit");
}

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

static int int_pow(VM *vm, int64_t base, int64_t exp, Value *out) {
    if (exp < 0) {
        if (base == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "0.0 cannot be raised to a negative power");
            return -1;
        }
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
    overflow(vm);
    return -1;
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
            vm_raise(vm, vm->e_NotImplementedError,
                     "complex numbers are not supported (negative number to a fractional power)");
            return -1;
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

int num_binary(VM *vm, int op, Value a, Value b, Value *out) {
    if (!val_is_number(a) || !val_is_number(b)) return 0;
    if (op >= BINOP_INPLACE) op -= BINOP_INPLACE;
    if (a.tag == VAL_FLOAT || b.tag == VAL_FLOAT) {
        if (op == BINOP_AND || op == BINOP_OR || op == BINOP_XOR || op == BINOP_LSHIFT ||
            op == BINOP_RSHIFT || op == BINOP_MATMUL)
            return 0;
        return float_op(vm, op, val_as_double(a), val_as_double(b), out);
    }
    int64_t x = val_as_intlike(a), y = val_as_intlike(b), r;
    bool both_bool = a.tag == VAL_BOOL && b.tag == VAL_BOOL;
    switch (op) {
    case BINOP_ADD:
        if (__builtin_add_overflow(x, y, &r)) goto ovf;
        break;
    case BINOP_SUBTRACT:
        if (__builtin_sub_overflow(x, y, &r)) goto ovf;
        break;
    case BINOP_MULTIPLY:
        if (__builtin_mul_overflow(x, y, &r)) goto ovf;
        break;
    case BINOP_TRUE_DIVIDE:
        if (y == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "division by zero");
            return -1;
        }
        *out = val_float((double)x / (double)y);
        return 1;
    case BINOP_FLOOR_DIVIDE:
        if (y == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "integer division or modulo by zero");
            return -1;
        }
        if (x == INT64_MIN && y == -1) goto ovf;
        r = floor_div(x, y);
        break;
    case BINOP_REMAINDER:
        if (y == 0) {
            vm_raise(vm, vm->e_ZeroDivisionError, "integer modulo by zero");
            return -1;
        }
        r = y == -1 ? 0 : floor_mod(x, y);
        break;
    case BINOP_POWER: return int_pow(vm, x, y, out);
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
        if (y >= 64 || (x > 0 ? x > (INT64_MAX >> y) : x < (INT64_MIN >> y))) goto ovf;
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
ovf:
    overflow(vm);
    return -1;
}

bool num_compare(Value a, Value b, CompareOp op, bool *ok) {
    if (!val_is_number(a) || !val_is_number(b)) {
        *ok = false;
        return false;
    }
    *ok = true;
    if (a.tag != VAL_FLOAT && b.tag != VAL_FLOAT) {
        int64_t x = val_as_intlike(a), y = val_as_intlike(b);
        switch (op) {
        case CMP_LT: return x < y;
        case CMP_LE: return x <= y;
        case CMP_EQ: return x == y;
        case CMP_NE: return x != y;
        case CMP_GT: return x > y;
        default: return x >= y;
        }
    }
    /* int vs float: compare exactly when the int is not representable as a double */
    double x = val_as_double(a), y = val_as_double(b);
    if (a.tag != VAL_FLOAT && (int64_t)x != val_as_intlike(a) && isfinite(y)) {
        long double lx = (long double)val_as_intlike(a), ly = y;
        switch (op) {
        case CMP_LT: return lx < ly;
        case CMP_LE: return lx <= ly;
        case CMP_EQ: return lx == ly;
        case CMP_NE: return lx != ly;
        case CMP_GT: return lx > ly;
        default: return lx >= ly;
        }
    }
    switch (op) {
    case CMP_LT: return x < y;
    case CMP_LE: return x <= y;
    case CMP_EQ: return x == y;
    case CMP_NE: return x != y;
    case CMP_GT: return x > y;
    default: return x >= y;
    }
}
