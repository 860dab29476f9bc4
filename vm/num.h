/* vm/num.h — int, float and bool arithmetic with Python semantics (floor division, modulo
 * sign, true division, 64-bit overflow raising OverflowError), comparisons, and the text forms
 * of numbers: float repr (shortest round-trip, as CPython), the format-spec mini-language,
 * round(), and parsing for int()/float(). */
#ifndef EMBER_VM_NUM_H
#define EMBER_VM_NUM_H

#include "vm/vm.h"
#include "vm/bigint.h"

/* Instances of float subclasses (float values themselves are unboxed VAL_FLOATs). */
typedef struct FloatObj {
    Obj hdr;
    double v;
    DictObj *dict;
} FloatObj;

/* a op b for numeric operands (BinaryOp, in-place forms allowed).  1: *out set; 0: not both
 * numbers (caller tries dunders); -1: error raised.  Numbers are ints (small or big), bools
 * and floats; num_binary_ex with `sub` also takes instances of int and float subclasses (the
 * dunders of int and float use it). */
int num_binary(VM *vm, int op, Value a, Value b, Value *out);
int num_binary_ex(VM *vm, int op, Value a, Value b, Value *out, bool sub);
/* a cmp b for numeric operands (exact between ints and floats).  Returns false through *ok
 * when not both numbers. */
bool num_compare(VM *vm, Value a, Value b, CompareOp op, bool *ok);
bool num_compare_ex(VM *vm, Value a, Value b, CompareOp op, bool *ok, bool sub);
static inline bool val_is_number(Value v) {
    return v.tag == VAL_INT || v.tag == VAL_FLOAT || v.tag == VAL_BOOL;
}
static inline double val_as_double(Value v) {
    return v.tag == VAL_FLOAT ? v.as.f : (double)val_as_intlike(v);
}

/* The shortest string that round-trips, in CPython's repr layout ("0.1", "1e-05", "inf"). */
void float_repr(double x, char *buf, size_t cap);
/* round(x, ndigits) with correct decimal rounding (half-even on exact ties). */
double float_round(double x, int64_t ndigits);
/* Format per the mini-language; spec is the part after ':' in "{x:spec}".  format_int takes
 * any int value (small, big, bool, or an int-subclass instance). */
Value format_int(VM *vm, Value v, StrObj *spec);
Value format_float(VM *vm, double v, StrObj *spec);
Value format_complex(VM *vm, double re, double im, StrObj *spec);
Value format_str(VM *vm, StrObj *s, StrObj *spec);
/* int(s, base) / float(s) parsing with CPython's messages (big results become big ints). */
Value parse_int(VM *vm, StrObj *s, int base);
Value parse_float(VM *vm, StrObj *s);

/* complex numbers (vm/complex.c) */
Value complex_new_value(VM *vm, double re, double im);
/* the parts of a complex (or complex-subclass) value; false (no exception) for anything else */
bool complex_parts(Value v, double *re, double *im);
/* (ar + ai j) / (br + bi j) by Smith's method, as CPython's complex division (also cmath's);
 * false with *re = *im = 0 when the divisor is 0 */
bool complex_quotient(double ar, double ai, double br, double bi, double *re, double *im);
/* x ** y for a negative x and a fractional y: the complex power (CPython's float_pow) */
Value complex_float_power(VM *vm, double x, double y);
size_t complex_dict_offset(void);
void complex_init_type(VM *vm);

/* pow(base, exp, mod) for three ints (a negative exp means the modular inverse). */
Value num_int_powmod(VM *vm, Value base, Value exp, Value mod);

void num_init_types(VM *vm);

#endif
