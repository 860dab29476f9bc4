/* vm/num_methods.c — int, float, bool and NoneType as script-visible types: the constructors
 * int(x, base), float(x), bool(x) with CPython's conversion rules and messages, and the
 * methods scripts call on numbers (is_integer, bit_length, __index__, __round__, ...). */
#include <math.h>

#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static Value float_to_int(VM *vm, double d) {
    if (isnan(d)) return vm_raise(vm, vm->e_ValueError, "cannot convert float NaN to integer");
    if (isinf(d)) return vm_raise(vm, vm->e_OverflowError, "cannot convert float infinity to integer");
    double t = trunc(d);
    if (t >= 9.2233720368547758e18 || t < -9.2233720368547758e18)
        return vm_raise(vm, vm->e_OverflowError, "integer overflow: Ember ints are 64-bit");
    return val_int((int64_t)t);
}

static Value int_new(ARGS) {
    static const char *const names[] = {"cls", "x", "base"};
    Value a[3];
    if (native_parse_args(vm, "int", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    if (AS_TYPE(a[0]) != vm->t_int) return vm_raise(vm, vm->e_NotImplementedError, "subclassing int is not supported");
    Value x = a[1];
    if (val_is_null(x)) return val_int(0);
    if (!val_is_null(a[2])) {
        int64_t base;
        if (vm_index(vm, a[2], &base) < 0) return val_null();
        if (!val_is_str(vm, x)) return vm_raise(vm, vm->e_TypeError, "int() can't convert non-string with explicit base");
        if (base != 0 && (base < 2 || base > 36)) return vm_raise(vm, vm->e_ValueError, "int() base must be >= 2 and <= 36, or 0");
        return parse_int(vm, AS_STR(x), (int)base);
    }
    if (x.tag == VAL_INT) return x;
    if (x.tag == VAL_BOOL) return val_int(x.as.b);
    if (x.tag == VAL_FLOAT) return float_to_int(vm, x.as.f);
    if (val_is_str(vm, x)) return parse_int(vm, AS_STR(x), 10);
    TypeObj *t = vm_type_of(vm, x);
    if (!val_is_null(type_special(vm, t, SP_INT))) {
        Value r = vm_call_special(vm, x, SP_INT, 0, NULL);
        if (val_is_null(r) || val_is_intlike(r)) return val_is_null(r) ? r : val_int(val_as_intlike(r));
        return vm_raise(vm, vm->e_TypeError, "__int__ returned non-int (type %s)", vm_type_name(vm, r));
    }
    if (!val_is_null(type_special(vm, t, SP_INDEX))) {
        int64_t i;
        if (vm_index(vm, x, &i) < 0) return val_null();
        return val_int(i);
    }
    return vm_raise(vm, vm->e_TypeError, "int() argument must be a string, a bytes-like object or a real number, not '%s'",
                    t->name->data);
}

static Value float_new(ARGS) {
    if (native_check_args(vm, "float", argc, kw, 1, 2) < 0) return val_null();
    if (AS_TYPE(argv[0]) != vm->t_float) return vm_raise(vm, vm->e_NotImplementedError, "subclassing float is not supported");
    if (argc == 1) return val_float(0.0);
    Value x = argv[1];
    if (val_is_number(x)) return val_float(val_as_double(x));
    if (val_is_str(vm, x)) return parse_float(vm, AS_STR(x));
    double d;
    if (!val_is_null(type_special(vm, vm_type_of(vm, x), SP_FLOAT)) ||
        !val_is_null(type_special(vm, vm_type_of(vm, x), SP_INDEX))) {
        if (vm_to_double(vm, x, &d) < 0) return val_null();
        return val_float(d);
    }
    return vm_raise(vm, vm->e_TypeError, "float() argument must be a string or a real number, not '%s'", vm_type_name(vm, x));
}

static Value bool_new(ARGS) {
    if (native_check_args(vm, "bool", argc, kw, 1, 2) < 0) return val_null();
    if (argc == 1) return val_bool(false);
    int t = vm_truthy(vm, argv[1]);
    return t < 0 ? val_null() : val_bool(t);
}

static Value num_index(ARGS) { return val_int(val_as_intlike(argv[0])); }
static Value num_int(ARGS) {
    if (argv[0].tag == VAL_FLOAT) return float_to_int(vm, argv[0].as.f);
    return val_int(val_as_intlike(argv[0]));
}
static Value num_float(ARGS) { return val_float(val_as_double(argv[0])); }
static Value num_abs(ARGS) {
    if (argv[0].tag == VAL_FLOAT) return val_float(fabs(argv[0].as.f));
    int64_t v = val_as_intlike(argv[0]);
    return val_int(v < 0 ? -v : v);
}
static Value num_repr(ARGS) { return vm_repr(vm, argv[0]); }
static Value num_bool(ARGS) {
    int t = vm_truthy(vm, argv[0]);
    return val_bool(t);
}
static Value num_hash(ARGS) {
    int64_t h;
    if (vm_hash(vm, argv[0], &h) < 0) return val_null();
    return val_int(h);
}
static Value num_format(ARGS) {
    if (native_check_args(vm, "__format__", argc, kw, 2, 2) < 0) return val_null();
    return vm_format(vm, argv[0], argv[1]);
}

static Value int_bit_length(ARGS) {
    int64_t v = val_as_intlike(argv[0]);
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return val_int(m ? 64 - __builtin_clzll(m) : 0);
}
static Value int_conjugate(ARGS) { return val_int(val_as_intlike(argv[0])); }

static Value float_is_integer(ARGS) {
    double d = argv[0].as.f;
    return val_bool(isfinite(d) && d == floor(d));
}
static Value float_as_integer_ratio(ARGS) {
    double d = argv[0].as.f;
    if (!isfinite(d)) return vm_raise(vm, isnan(d) ? vm->e_ValueError : vm->e_OverflowError,
                                      isnan(d) ? "cannot convert NaN to integer ratio" : "cannot convert Infinity to integer ratio");
    int e;
    double m = frexp(d, &e);
    for (int i = 0; i < 300 && m != floor(m); i++) {
        m *= 2.0;
        e--;
    }
    int64_t num = (int64_t)m, den = 1;
    if (e > 0) {
        if (e > 62) return vm_raise(vm, vm->e_OverflowError, "integer overflow: Ember ints are 64-bit");
        num <<= e;
    } else {
        if (-e > 62) return vm_raise(vm, vm->e_OverflowError, "integer overflow: Ember ints are 64-bit");
        den <<= -e;
    }
    TupleObj *t = tuple_pack(vm, 2, val_int(num), val_int(den));
    return t ? val_obj(t) : val_null();
}

/* The operator dunders of int and float (int.__add__, (1.5).__lt__, ...).  Operators on
 * numbers never look these up (num_binary and num_compare come first); they exist for code
 * that names them.  data: BinaryOp | NUM_REFLECTED, or a CompareOp + NUM_CMP. */
enum { NUM_REFLECTED = 0x100, NUM_CMP = 0x200 };

static Value num_binop_dunder(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 2, 2) < 0) return val_null();
    intptr_t d = (intptr_t)fn->data;
    /* int methods do not accept floats: int.__add__(1, 2.0) is NotImplemented */
    if (!val_is_number(argv[1]) || (argv[0].tag != VAL_FLOAT && argv[1].tag == VAL_FLOAT))
        return vm->not_implemented;
    if (d & NUM_CMP) {
        bool ok;
        return val_bool(num_compare(argv[0], argv[1], (CompareOp)(d & 0xff), &ok));
    }
    Value a = argv[0], b = argv[1], out;
    if (d & NUM_REFLECTED) {
        a = argv[1];
        b = argv[0];
    }
    int r = num_binary(vm, (int)(d & 0xff), a, b, &out);
    if (r < 0) return val_null();
    return r ? out : vm->not_implemented;
}

static Value num_unary_dunder(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 1, 1) < 0) return val_null();
    return vm_unary_op(vm, (int)(intptr_t)fn->data, argv[0]);
}

static Value num_divmod_dunder(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_number(argv[1]) || (argv[0].tag != VAL_FLOAT && argv[1].tag == VAL_FLOAT))
        return vm->not_implemented;
    Value a = fn->data ? argv[1] : argv[0], b = fn->data ? argv[0] : argv[1], q, m;
    if (num_binary(vm, BINOP_FLOOR_DIVIDE, a, b, &q) < 0) return val_null();
    if (num_binary(vm, BINOP_REMAINDER, a, b, &m) < 0) return val_null();
    TupleObj *t = tuple_pack(vm, 2, q, m);
    return t ? val_obj(t) : val_null();
}

#define NUM_BINOP(name, op) {"__" name "__", num_binop_dunder, NATIVEF_METHOD, (void *)(intptr_t)(op)}, \
        {"__r" name "__", num_binop_dunder, NATIVEF_METHOD, (void *)(intptr_t)((op) | NUM_REFLECTED)}
#define NUM_CMPOP(name, op) {"__" name "__", num_binop_dunder, NATIVEF_METHOD, (void *)(intptr_t)((op) | NUM_CMP)}
#define NUM_COMMON_DUNDERS \
    NUM_BINOP("add", BINOP_ADD), NUM_BINOP("sub", BINOP_SUBTRACT), NUM_BINOP("mul", BINOP_MULTIPLY), \
    NUM_BINOP("truediv", BINOP_TRUE_DIVIDE), NUM_BINOP("floordiv", BINOP_FLOOR_DIVIDE), \
    NUM_BINOP("mod", BINOP_REMAINDER), NUM_BINOP("pow", BINOP_POWER), \
    NUM_CMPOP("eq", CMP_EQ), NUM_CMPOP("ne", CMP_NE), NUM_CMPOP("lt", CMP_LT), NUM_CMPOP("le", CMP_LE), \
    NUM_CMPOP("gt", CMP_GT), NUM_CMPOP("ge", CMP_GE), \
    {"__neg__", num_unary_dunder, NATIVEF_METHOD, (void *)(intptr_t)OP_UNARY_NEGATIVE}, \
    {"__pos__", num_unary_dunder, NATIVEF_METHOD, (void *)(intptr_t)OP_UNARY_POSITIVE}, \
    {"__divmod__", num_divmod_dunder, NATIVEF_METHOD, NULL}, \
    {"__rdivmod__", num_divmod_dunder, NATIVEF_METHOD, (void *)1}

static Value int_get_real(VM *vm, Value s, void *c) { return val_int(val_as_intlike(s)); }
static Value int_get_imag(VM *vm, Value s, void *c) { return val_int(0); }
static Value int_get_num(VM *vm, Value s, void *c) { return val_int(val_as_intlike(s)); }
static Value int_get_den(VM *vm, Value s, void *c) { return val_int(1); }
static Value float_get_real(VM *vm, Value s, void *c) { return s; }
static Value float_get_imag(VM *vm, Value s, void *c) { return val_float(0.0); }

void num_init_types(VM *vm) {
    static const MethodDef im[] = {
        {"__new__", int_new, NATIVEF_STATIC}, {"__index__", num_index, NATIVEF_METHOD},
        {"__int__", num_int, NATIVEF_METHOD}, {"__float__", num_float, NATIVEF_METHOD},
        {"__abs__", num_abs, NATIVEF_METHOD}, {"__repr__", num_repr, NATIVEF_METHOD},
        {"__bool__", num_bool, NATIVEF_METHOD}, {"__hash__", num_hash, NATIVEF_METHOD},
        {"__format__", num_format, NATIVEF_METHOD}, {"bit_length", int_bit_length, NATIVEF_METHOD},
        {"conjugate", int_conjugate, NATIVEF_METHOD}, NUM_COMMON_DUNDERS,
        NUM_BINOP("and", BINOP_AND), NUM_BINOP("or", BINOP_OR), NUM_BINOP("xor", BINOP_XOR),
        NUM_BINOP("lshift", BINOP_LSHIFT), NUM_BINOP("rshift", BINOP_RSHIFT),
        {"__invert__", num_unary_dunder, NATIVEF_METHOD, (void *)(intptr_t)OP_UNARY_INVERT}, {NULL}};
    static const GetSetDef igs[] = {
        {"real", int_get_real, NULL}, {"imag", int_get_imag, NULL}, {"numerator", int_get_num, NULL},
        {"denominator", int_get_den, NULL}, {NULL}};
    static const MethodDef fm[] = {
        {"__new__", float_new, NATIVEF_STATIC | ARITY_POS(0, 1)}, {"__int__", num_int, NATIVEF_METHOD},
        {"__float__", num_float, NATIVEF_METHOD}, {"__abs__", num_abs, NATIVEF_METHOD},
        {"__repr__", num_repr, NATIVEF_METHOD}, {"__bool__", num_bool, NATIVEF_METHOD},
        {"__hash__", num_hash, NATIVEF_METHOD}, {"__format__", num_format, NATIVEF_METHOD},
        {"is_integer", float_is_integer, NATIVEF_METHOD},
        {"as_integer_ratio", float_as_integer_ratio, NATIVEF_METHOD}, NUM_COMMON_DUNDERS, {NULL}};
    static const GetSetDef fgs[] = {{"real", float_get_real, NULL}, {"imag", float_get_imag, NULL}, {NULL}};
    static const MethodDef bm[] = {{"__new__", bool_new, NATIVEF_STATIC | ARITY_POS(0, 1)}, {"__repr__", num_repr, NATIVEF_METHOD}, {NULL}};
    if (type_add_methods(vm, vm->t_int, im) < 0 || type_add_getsets(vm, vm->t_int, igs) < 0 ||
        type_add_methods(vm, vm->t_float, fm) < 0 || type_add_getsets(vm, vm->t_float, fgs) < 0 ||
        type_add_methods(vm, vm->t_bool, bm) < 0)
        EM_UNREACHABLE();
}
