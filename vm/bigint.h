/* vm/bigint.h — arbitrary-precision ints on GMP, and the int API native modules use.
 *
 * Design note.  An int whose value fits in int64 is always an unboxed VAL_INT (the interpreter's
 * fast paths only ever see those); a value outside int64 is a heap IntObj of type `int` holding
 * an mpz.  The representation is canonical — an exact-int IntObj never holds a value that fits
 * in int64 — so equality of small ints stays a tag+payload compare and `bigint_from_mpz` is the
 * one place that decides.  Instances of int subclasses (IntEnum members, bool-like flags) are
 * IntObjs too, of their own type, with any value and an attribute dict.
 *
 *   Value v = val_int(1);                       small
 *   mpz_t z; mpz_init(z); mpz_ui_pow_ui(z, 2, 64);
 *   Value b = bigint_from_mpz(vm, z);           IntObj, type int  (2**64)
 *   mpz_clear(z);
 *   bigint_to_mpz(vm, b, z) / bigint_as_i64(vm, b, &i)  to read any int back
 *
 * Operations on ints go through num_binary (vm/num.c) which takes the int64 path first and
 * calls bigint_binary only on overflow or when an operand is already big.
 */
#ifndef EMBER_VM_BIGINT_H
#define EMBER_VM_BIGINT_H

#include <gmp.h>

#include "vm/vm.h"

typedef struct IntObj {
    Obj hdr;
    mpz_t z;
    DictObj *dict;   /* attributes of int-subclass instances (NULL for plain ints) */
} IntObj;

#define AS_INTOBJ(v) ((IntObj *)(v).as.o)

/* An IntObj: a big int or an int-subclass instance. */
static inline bool val_is_intobj(Value v) { return v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_INT; }

/* ---- the API for native modules ------------------------------------------------------------ */

/* Any int: int, bool, or an instance of an int subclass. */
bool bigint_check(VM *vm, Value v);
/* Read any int into `out` (mpz_init'ed by the caller).  -1 + TypeError if v is not an int. */
int bigint_to_mpz(VM *vm, Value v, mpz_t out) EM_MUST_CHECK;
/* __index__ then read: what CPython's PyNumber_Index accepts.  -1 + TypeError otherwise. */
int bigint_index_mpz(VM *vm, Value v, mpz_t out) EM_MUST_CHECK;
/* The canonical int for z: VAL_INT when it fits int64, else a new IntObj. */
Value bigint_from_mpz(VM *vm, const mpz_t z);
Value bigint_from_u64(VM *vm, uint64_t u);
/* An int's value as int64; -1 + OverflowError "Python int too large to convert to C long". */
int bigint_as_i64(VM *vm, Value v, int64_t *out) EM_MUST_CHECK;
/* Correctly rounded (half-even) conversion; -1 + OverflowError "int too large to convert to
 * float". */
int bigint_to_double(VM *vm, Value v, double *out) EM_MUST_CHECK;
int bigint_mpz_to_double(VM *vm, const mpz_t z, double *out) EM_MUST_CHECK;
/* int(d): truncation toward zero; ValueError for NaN, OverflowError for infinities. */
Value bigint_from_double(VM *vm, double d);
/* Number of bits of |v| (int.bit_length()). */
int64_t bigint_bit_length(VM *vm, Value v);

/* ---- used by the VM core -------------------------------------------------------------------- */

/* A new IntObj of type t (int or a subclass) holding z, whatever its size. */
Value bigint_new_obj(VM *vm, TypeObj *t, const mpz_t z);
/* Load an int value (VAL_INT, VAL_BOOL or IntObj; the caller checked) into out. */
void bigint_load(Value v, mpz_t out);
/* a op b for two ints (BinaryOp, in-place folded by the caller).  1: *out set; -1: error. */
int bigint_binary(VM *vm, int op, Value a, Value b, Value *out);
/* -a, +a, ~a, abs(a) of an int (opcode OP_UNARY_* or -1 for abs); the canonical result. */
Value bigint_unary(VM *vm, int opcode, Value a);
/* Three-way compare of two ints. */
int bigint_cmp(Value a, Value b);
/* a cmp d exactly (CPython's int/float comparison: no rounding of the int). */
bool bigint_cmp_double(Value a, double d, CompareOp op);
int64_t bigint_hash(Value v);
/* str(v) in base 10 (the 4300-digit limit of CPython 3.11 applies), or base 2/8/16 digits
 * without prefix.  NULL + exception on failure. */
StrObj *bigint_to_str(VM *vm, Value v, int base);
/* The digits of |v| in `base` into a malloc'd buffer (caller frees), sign through *neg.
 * NULL + exception (the digit limit, memory). */
char *bigint_digits(VM *vm, Value v, int base, bool *neg);
/* ValueError for a decimal string beyond sys.get_int_max_str_digits() (ndigits < 0: count unknown) */
void bigint_digit_limit_error(VM *vm, int64_t ndigits);
/* Parse cleaned digits (no sign, prefix or underscores) in base 2..36. */
Value bigint_parse_digits(VM *vm, const char *digits, int base, bool neg);
/* Whether v is nonzero. */
bool bigint_truthy(Value v);
/* The int-digit limit of str()/int() conversions (sys.set_int_max_str_digits). */
extern int64_t bigint_max_str_digits;

void bigint_init_type(VM *vm);

#endif
