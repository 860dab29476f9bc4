/* vm/complex.c — the complex type: construction (numbers, __complex__, CPython's string forms),
 * arithmetic with ints and floats (Smith's division, integer powers by squaring, the polar
 * power otherwise, CPython's error messages), equality, CPython's hash, repr and __format__.
 * Complex values are heap ComplexObjs; they meet ints and floats through their dunders (the
 * numeric fast paths never see them). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vm/gc.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"
#include "vm/unicode.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

typedef struct ComplexObj {
    Obj hdr;
    double re, im;
    DictObj *dict;    /* attributes of complex-subclass instances */
} ComplexObj;

typedef struct Cx {
    double re, im;
} Cx;

#define CX(v) ((ComplexObj *)(v).as.o)

static bool is_complex(Value v) { return v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_COMPLEX; }

static void complex_trace(VM *vm, Obj *o) { gc_mark(vm, ((ComplexObj *)o)->dict); }

static Value complex_of(VM *vm, TypeObj *t, double re, double im) {
    ComplexObj *c = gc_alloc(vm, t, t->instance_size > sizeof(ComplexObj) ? t->instance_size : sizeof(ComplexObj));
    if (!c) return val_null();
    c->re = re;
    c->im = im;
    return val_obj(c);
}

Value complex_new_value(VM *vm, double re, double im) { return complex_of(vm, vm->t_complex, re, im); }

bool complex_parts(Value v, double *re, double *im) {
    if (!is_complex(v)) return false;
    *re = CX(v)->re;
    *im = CX(v)->im;
    return true;
}

static Value complex_alloc(VM *vm, TypeObj *t) { return complex_of(vm, t, 0, 0); }

/* An operand as a complex: complex, int (as a double, OverflowError when too large) or float.
 * 1: *out set; 0: not a number complex arithmetic takes (NotImplemented); -1: error. */
static int to_cx(VM *vm, Value v, Cx *out) {
    out->im = 0;
    if (is_complex(v)) {
        out->re = CX(v)->re;
        out->im = CX(v)->im;
        return 1;
    }
    if (v.tag == VAL_FLOAT) {
        out->re = v.as.f;
        return 1;
    }
    if (v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_FLOAT) {
        out->re = ((FloatObj *)v.as.o)->v;
        return 1;
    }
    if (bigint_check(vm, v)) return bigint_to_double(vm, v, &out->re) < 0 ? -1 : 1;
    return 0;
}

/* ---- arithmetic (CPython's _Py_c_* functions) ------------------------------------------------------- */

static Cx c_prod(Cx a, Cx b) { return (Cx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

bool complex_quotient(double ar, double ai, double br, double bi, double *re, double *im) {
    double abr = fabs(br), abi = fabs(bi);
    if (abr >= abi) {
        if (abr == 0.0) {
            *re = *im = 0.0;
            return false;
        }
        double ratio = bi / br, denom = br + bi * ratio;
        *re = (ar + ai * ratio) / denom;
        *im = (ai - ar * ratio) / denom;
    } else if (abi >= abr) {
        double ratio = br / bi, denom = br * ratio + bi;
        *re = (ar * ratio + ai) / denom;
        *im = (ai * ratio - ar) / denom;
    } else {
        *re = *im = NAN;   /* a NaN in b */
    }
    return true;
}

/* Smith's method; *zero set when b is 0 */
static Cx c_quot(Cx a, Cx b, bool *zero) {
    Cx r;
    *zero = !complex_quotient(a.re, a.im, b.re, b.im, &r.re, &r.im);
    return r;
}

static Cx c_powu(Cx x, long n) {
    Cx r = {1, 0}, p = x;
    long mask = 1;
    while (mask > 0 && n >= mask) {
        if (n & mask) r = c_prod(r, p);
        mask <<= 1;
        p = c_prod(p, p);
    }
    return r;
}

/* errno-style results: 0, EDOM (0 to a negative or complex power) or ERANGE */
static Cx c_pow(Cx a, Cx b, int *err) {
    *err = 0;
    if (b.re == 0 && b.im == 0) return (Cx){1, 0};
    if (a.re == 0 && a.im == 0) {
        if (b.im != 0 || b.re < 0) *err = EDOM;
        return (Cx){0, 0};
    }
    errno = 0;
    double vabs = hypot(a.re, a.im), len = pow(vabs, b.re), at = atan2(a.im, a.re), phase = at * b.re;
    if (b.im != 0) {
        len /= exp(at * b.im);
        phase += b.im * log(vabs);
    }
    Cx r = {len * cos(phase), len * sin(phase)};
    if (errno == ERANGE) *err = ERANGE;
    return r;
}

static Value cx_result(VM *vm, Cx r) { return complex_new_value(vm, r.re, r.im); }

/* a ** b with CPython's complex_pow: small integral exponents by squaring */
static Value cx_power(VM *vm, Cx a, Cx b) {
    Cx p;
    int err = 0;
    if (b.im == 0 && b.re == floor(b.re) && fabs(b.re) <= 100.0) {
        long n = (long)b.re;
        if (n > 0) {
            p = c_powu(a, n);
        } else {
            bool zero;
            Cx d = c_powu(a, -n);
            p = c_quot((Cx){1, 0}, d, &zero);
            if (zero) err = EDOM;
        }
    } else {
        p = c_pow(a, b, &err);
    }
    /* _Py_ADJUST_ERANGE2: an infinite part is an overflow */
    if (isinf(p.re) || isinf(p.im)) {
        if (!err) err = ERANGE;
    } else if (err == ERANGE) {
        err = 0;
    }
    if (err == EDOM) return vm_raise(vm, vm->e_ZeroDivisionError, "0.0 to a negative or complex power");
    if (err == ERANGE) return vm_raise(vm, vm->e_OverflowError, "complex exponentiation");
    return cx_result(vm, p);
}

Value complex_float_power(VM *vm, double x, double y) { return cx_power(vm, (Cx){x, 0}, (Cx){y, 0}); }

enum { CX_ADD, CX_SUB, CX_MUL, CX_DIV, CX_POW };

static Value cx_binop(ARGS) {
    intptr_t d = (intptr_t)fn->data;
    bool reflected = d & 0x100;
    int op = (int)(d & 0xff);
    if (op == CX_POW) {
        if (native_check_args(vm, fn->name, argc, kw, 2, 3) < 0) return val_null();
        if (argc == 3 && !val_is_none(argv[2])) return vm_raise(vm, vm->e_ValueError, "complex modulo");
    } else if (native_check_args(vm, fn->name, argc, kw, 2, 2) < 0) {
        return val_null();
    }
    Cx a, b;
    int r = to_cx(vm, argv[0], &a);
    if (r <= 0) return r < 0 ? val_null() : vm->not_implemented;
    r = to_cx(vm, argv[1], &b);
    if (r <= 0) return r < 0 ? val_null() : vm->not_implemented;
    if (reflected) {
        Cx t = a;
        a = b;
        b = t;
    }
    switch (op) {
    case CX_ADD: return cx_result(vm, (Cx){a.re + b.re, a.im + b.im});
    case CX_SUB: return cx_result(vm, (Cx){a.re - b.re, a.im - b.im});
    case CX_MUL: return cx_result(vm, c_prod(a, b));
    case CX_DIV: {
        bool zero;
        Cx q = c_quot(a, b, &zero);
        if (zero) return vm_raise(vm, vm->e_ZeroDivisionError, "complex division by zero");
        return cx_result(vm, q);
    }
    default: return cx_power(vm, a, b);
    }
}

static Value cx_neg(ARGS) { return complex_new_value(vm, -CX(argv[0])->re, -CX(argv[0])->im); }
static Value cx_pos(ARGS) {
    if (argv[0].as.o->type == vm->t_complex) return argv[0];
    return complex_new_value(vm, CX(argv[0])->re, CX(argv[0])->im);
}
static Value cx_abs(ARGS) {
    double re = CX(argv[0])->re, im = CX(argv[0])->im;
    if (isinf(re)) return val_float(fabs(re));
    if (isinf(im)) return val_float(fabs(im));
    if (isnan(re) || isnan(im)) return val_float(NAN);
    double r = hypot(re, im);
    if (!isfinite(r)) return vm_raise(vm, vm->e_OverflowError, "absolute value too large");
    return val_float(r);
}
static Value cx_bool(ARGS) { return val_bool(CX(argv[0])->re != 0 || CX(argv[0])->im != 0); }
static Value cx_conjugate(ARGS) { return complex_new_value(vm, CX(argv[0])->re, -CX(argv[0])->im); }
static Value cx_complex(ARGS) { return cx_pos(vm, argc, argv, kw, fn); }
static Value cx_getnewargs(ARGS) {
    TupleObj *t = tuple_pack(vm, 2, val_float(CX(argv[0])->re), val_float(CX(argv[0])->im));
    return t ? val_obj(t) : val_null();
}

/* ==/!= only (ordering is NotImplemented, so the operators raise CPython's TypeError) */
static Value cx_richcmp(ARGS) {
    if (native_check_args(vm, fn->name, argc, kw, 2, 2) < 0) return val_null();
    CompareOp op = (CompareOp)(intptr_t)fn->data;
    if (op != CMP_EQ && op != CMP_NE) return vm->not_implemented;
    Cx a = {CX(argv[0])->re, CX(argv[0])->im};
    Value w = argv[1];
    bool eq;
    if (bigint_check(vm, w)) {
        if (a.im != 0) eq = false;
        else {
            bool ok;
            eq = num_compare_ex(vm, val_float(a.re), w, CMP_EQ, &ok, true);
        }
    } else if (w.tag == VAL_FLOAT || (w.tag == VAL_OBJ && w.as.o->type->layout == OBJ_LAYOUT_FLOAT)) {
        double x = w.tag == VAL_FLOAT ? w.as.f : ((FloatObj *)w.as.o)->v;
        eq = a.re == x && a.im == 0;
    } else if (is_complex(w)) {
        eq = a.re == CX(w)->re && a.im == CX(w)->im;
    } else {
        return vm->not_implemented;
    }
    return val_bool(op == CMP_EQ ? eq : !eq);
}

static Value cx_hash(ARGS) {
    /* hash(re) + 1000003 * hash(im), so hash(x + 0j) == hash(x) */
    int64_t hr, hi;
    if (vm_hash(vm, val_float(CX(argv[0])->re), &hr) < 0 || vm_hash(vm, val_float(CX(argv[0])->im), &hi) < 0)
        return val_null();
    uint64_t h = (uint64_t)hr + 1000003u * (uint64_t)hi;
    if (h == (uint64_t)-1) h = (uint64_t)-2;
    return val_int((int64_t)h);
}

/* repr: "(1+2j)", "2j" (a +0 real part is left out), CPython's float repr without ".0" */
static void part_repr(double v, bool sign, char *out, size_t cap) {
    char buf[64];
    float_repr(fabs(v), buf, sizeof buf);
    size_t n = strlen(buf);
    if (n > 2 && buf[n - 2] == '.' && buf[n - 1] == '0') buf[n - 2] = 0;
    bool neg = signbit(v) && !isnan(v);
    snprintf(out, cap, "%s%s", neg ? "-" : sign ? "+" : "", buf);
}

static Value cx_repr(ARGS) {
    double re = CX(argv[0])->re, im = CX(argv[0])->im;
    char rs[80], is[80];
    StrObj *s;
    if (re == 0 && !signbit(re)) {
        part_repr(im, false, is, sizeof is);
        s = str_printf(vm, "%sj", is);
    } else {
        part_repr(re, false, rs, sizeof rs);
        part_repr(im, true, is, sizeof is);
        s = str_printf(vm, "(%s%sj)", rs, is);
    }
    return s ? val_obj(s) : val_null();
}

static Value cx_format(ARGS) {
    if (native_check_args(vm, "__format__", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "__format__() argument must be str, not %s", vm_type_name(vm, argv[1]));
    if (AS_STR(argv[1])->len == 0) return vm_str(vm, argv[0]);
    return format_complex(vm, CX(argv[0])->re, CX(argv[0])->im, AS_STR(argv[1]));
}

static Value cx_get_real(VM *vm, Value s, void *c) { return val_float(CX(s)->re); }
static Value cx_get_imag(VM *vm, Value s, void *c) { return val_float(CX(s)->im); }

/* ---- construction ------------------------------------------------------------------------------------ */

/* A Python float literal's extent at s (sign, digits with optional point and exponent, or
 * inf/infinity/nan), its value through strtod; returns the end, s itself if none. */
static const char *scan_double(const char *s, double *out) {
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    const char *names[] = {"infinity", "inf", "nan"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(names[i]);
        if (strncasecmp(p, names[i], n) == 0) {
            double v = i == 2 ? NAN : INFINITY;
            *out = *s == '-' ? -v : v;
            return p + n;
        }
    }
    const char *d = p;
    bool digits = false;
    while (isdigit((unsigned char)*p)) p++, digits = true;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) p++, digits = true;
    }
    if (!digits) return s;
    if (*p == 'e' || *p == 'E') {
        const char *e = p + 1;
        if (*e == '+' || *e == '-') e++;
        if (isdigit((unsigned char)*e)) {
            while (isdigit((unsigned char)*e)) e++;
            p = e;
        }
    }
    char buf[512];
    size_t n = (size_t)(p - s);
    if (n >= sizeof buf) return s;
    memcpy(buf, s, n);
    buf[n] = 0;
    (void)d;
    *out = strtod(buf, NULL);
    return p;
}

/* complex_from_string_inner: "<float>", "<float>j", "<float><signed-float>j", "<float><sign>j",
 * "<sign>j", "j", optionally in parentheses, surrounding spaces allowed. */
static Value complex_from_string(VM *vm, TypeObj *t, StrObj *str) {
    /* Unicode digits and spaces to ASCII, underscores between digits removed */
    StrBuf b;
    sb_init(&b);
    int64_t pos = 0;
    while (pos < str->len) {
        uint32_t c = utf8_decode(str->data, str->len, &pos);
        if (c < 0x80) sb_addc(&b, (char)c);
        else if (uni_decimal_value(c) >= 0) sb_addc(&b, (char)('0' + uni_decimal_value(c)));
        else if (uni_is_space(c)) sb_addc(&b, ' ');
        else sb_addc(&b, '?');
    }
    sb_addc(&b, 0);
    char *s = b.data;
    int64_t len = b.len - 1;
    /* underscores: only between digits */
    char *w = s;
    for (int64_t i = 0; i < len; i++) {
        if (s[i] == '_') {
            if (i == 0 || i + 1 >= len || !isdigit((unsigned char)s[i - 1]) || !isdigit((unsigned char)s[i + 1])) {
                /* _Py_string_to_number_with_underscores's message */
                sb_free(&b);
                StrObj *r = str_repr(vm, str);
                if (!r) return val_null();
                return vm_raise(vm, vm->e_ValueError, "could not convert string to complex: %s", r->data);
            }
            continue;
        }
        *w++ = s[i];
    }
    *w = 0;
    {
        const char *p = s;
        double x = 0, y = 0, z;
        bool bracket = false;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '(') {
            bracket = true;
            p++;
            while (isspace((unsigned char)*p)) p++;
        }
        const char *end = scan_double(p, &z);
        if (end != p) {
            p = end;
            if (*p == '+' || *p == '-') {
                x = z;
                end = scan_double(p, &y);
                if (end != p) {
                    p = end;
                } else {
                    y = *p == '+' ? 1.0 : -1.0;
                    p++;
                }
                if (*p != 'j' && *p != 'J') goto bad;
                p++;
            } else if (*p == 'j' || *p == 'J') {
                p++;
                y = z;
            } else {
                x = z;
            }
        } else {
            if (*p == '+' || *p == '-') {
                y = *p == '+' ? 1.0 : -1.0;
                p++;
            } else {
                y = 1.0;
            }
            if (*p != 'j' && *p != 'J') goto bad;
            p++;
        }
        while (isspace((unsigned char)*p)) p++;
        if (bracket) {
            if (*p != ')') goto bad;
            p++;
            while (isspace((unsigned char)*p)) p++;
        }
        if (*p) goto bad;
        sb_free(&b);
        return complex_of(vm, t, x, y);
    }
bad:
    sb_free(&b);
    return vm_raise(vm, vm->e_ValueError, "complex() arg is a malformed string");
}

/* obj.__complex__(), VAL_NULL without an exception when it has none */
static Value try_complex_method(VM *vm, Value v) {
    Value f = type_lookup(vm, vm_type_of(vm, v), vm_intern_str(vm, "__complex__"));
    if (val_is_null(f)) return f;
    Value r = vm_call_method(vm, v, "__complex__", 0, NULL);
    if (val_is_null(r) || is_complex(r)) return r;
    return vm_raise(vm, vm->e_TypeError, "__complex__ returned non-complex (type %s)", vm_type_name(vm, r));
}

static bool number_like(VM *vm, Value v) {
    if (is_complex(v) || bigint_check(vm, v) || v.tag == VAL_FLOAT) return true;
    TypeObj *t = vm_type_of(vm, v);
    return !val_is_null(type_special(vm, t, SP_FLOAT)) || !val_is_null(type_special(vm, t, SP_INDEX));
}

static Value cx_new(ARGS) {
    static const char *const names[] = {"cls", "real", "imag"};
    Value a[3];
    if (native_parse_args(vm, "complex", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    if (!val_is_obj(a[0]) || !vm_isinstance_type(vm, a[0], vm->t_type) || !type_is_subtype(AS_TYPE(a[0]), vm->t_complex)) {
        const char *n = val_is_obj(a[0]) && vm_isinstance_type(vm, a[0], vm->t_type) ? AS_TYPE(a[0])->name->data : vm_type_name(vm, a[0]);
        return vm_raise(vm, vm->e_TypeError, "complex.__new__(%s): %s is not a subtype of complex", n, n);
    }
    TypeObj *t = AS_TYPE(a[0]);
    Value r = val_is_null(a[1]) ? val_int(0) : a[1], i = a[2];
    if (val_is_null(i) && t == vm->t_complex && val_is_type(vm, r, vm->t_complex)) return r;
    if (val_is_str(vm, r)) {
        if (!val_is_null(i)) return vm_raise(vm, vm->e_TypeError, "complex() can't take second arg if first is a string");
        return complex_from_string(vm, t, AS_STR(r));
    }
    if (!val_is_null(i) && val_is_str(vm, i)) return vm_raise(vm, vm->e_TypeError, "complex() second arg can't be a string");
    Value tmp = try_complex_method(vm, r);
    if (val_is_null(tmp) && !val_is_null(vm->exc)) return tmp;
    if (!val_is_null(tmp)) r = tmp;
    vm_push_root(vm, r);
    Value res = val_null();
    if (!number_like(vm, r)) {
        vm_raise(vm, vm->e_TypeError, "complex() first argument must be a string or a number, not '%s'", vm_type_name(vm, r));
        goto done;
    }
    if (!val_is_null(i) && !number_like(vm, i)) {
        vm_raise(vm, vm->e_TypeError, "complex() second argument must be a number, not '%s'", vm_type_name(vm, i));
        goto done;
    }
    Cx cr = {0, 0}, ci = {0, 0};
    bool cr_complex = false, ci_complex = false;
    if (is_complex(r)) {
        cr = (Cx){CX(r)->re, CX(r)->im};
        cr_complex = true;
    } else if (vm_to_double(vm, r, &cr.re) < 0) {
        goto done;
    }
    if (val_is_null(i)) {
        ci.re = cr.im;
    } else if (is_complex(i)) {
        ci = (Cx){CX(i)->re, CX(i)->im};
        ci_complex = true;
    } else if (vm_to_double(vm, i, &ci.re) < 0) {
        goto done;
    }
    if (ci_complex) cr.re -= ci.im;
    if (cr_complex && !val_is_null(i)) ci.re += cr.im;
    res = complex_of(vm, t, cr.re, ci.re);
done:
    vm_pop_root(vm);
    return res;
}

#define CXOP(name, op) {"__" name "__", cx_binop, NATIVEF_METHOD, (void *)(intptr_t)(op)}, \
        {"__r" name "__", cx_binop, NATIVEF_METHOD, (void *)(intptr_t)((op) | 0x100)}
#define CXCMP(name, op) {"__" name "__", cx_richcmp, NATIVEF_METHOD, (void *)(intptr_t)(op)}

void complex_init_type(VM *vm) {
    static const MethodDef m[] = {
        {"__new__", cx_new, NATIVEF_STATIC}, CXOP("add", CX_ADD), CXOP("sub", CX_SUB), CXOP("mul", CX_MUL),
        CXOP("truediv", CX_DIV), CXOP("pow", CX_POW),
        {"__neg__", cx_neg, NATIVEF_METHOD | ARITY_NOARGS}, {"__pos__", cx_pos, NATIVEF_METHOD | ARITY_NOARGS},
        {"__abs__", cx_abs, NATIVEF_METHOD | ARITY_NOARGS}, {"__bool__", cx_bool, NATIVEF_METHOD | ARITY_NOARGS},
        CXCMP("eq", CMP_EQ), CXCMP("ne", CMP_NE), CXCMP("lt", CMP_LT), CXCMP("le", CMP_LE), CXCMP("gt", CMP_GT),
        CXCMP("ge", CMP_GE), {"__hash__", cx_hash, NATIVEF_METHOD | ARITY_NOARGS},
        {"__repr__", cx_repr, NATIVEF_METHOD | ARITY_NOARGS}, {"__format__", cx_format, NATIVEF_METHOD},
        {"conjugate", cx_conjugate, NATIVEF_METHOD | ARITY_NOARGS}, {"__complex__", cx_complex, NATIVEF_METHOD | ARITY_NOARGS},
        {"__getnewargs__", cx_getnewargs, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef gs[] = {{"real", cx_get_real, NULL}, {"imag", cx_get_imag, NULL}, {NULL}};
    TypeObj *t = vm->t_complex;
    t->trace = complex_trace;
    t->alloc = complex_alloc;
    t->instance_size = sizeof(ComplexObj);
    if (type_add_methods(vm, t, m) < 0 || type_add_getsets(vm, t, gs) < 0) EM_UNREACHABLE();
}

size_t complex_dict_offset(void) { return offsetof(ComplexObj, dict); }
