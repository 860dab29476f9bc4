/* vm/num.h — int, float and bool arithmetic with Python semantics (floor division, modulo
 * sign, true division, 64-bit overflow raising OverflowError), comparisons, and the text forms
 * of numbers: float repr (shortest round-trip, as CPython), the format-spec mini-language,
 * round(), and parsing for int()/float(). */
#ifndef EMBER_VM_NUM_H
#define EMBER_VM_NUM_H

#include "vm/vm.h"

/* a op b for numeric operands (BinaryOp, in-place forms allowed).  1: *out set; 0: not both
 * numbers (caller tries dunders); -1: error raised. */
int num_binary(VM *vm, int op, Value a, Value b, Value *out);
/* a cmp b for numeric operands.  Returns false through *ok when not both numbers. */
bool num_compare(Value a, Value b, CompareOp op, bool *ok);
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
/* Format per the mini-language; spec is the part after ':' in "{x:spec}". */
Value format_int(VM *vm, int64_t v, StrObj *spec);
Value format_float(VM *vm, double v, StrObj *spec);
Value format_str(VM *vm, StrObj *s, StrObj *spec);
/* int(s, base) / float(s) parsing with CPython's messages. */
Value parse_int(VM *vm, StrObj *s, int base);
Value parse_float(VM *vm, StrObj *s);

void num_init_types(VM *vm);

#endif
