/* vm/format.c — numbers as text: float repr (shortest round-trip, CPython's layout), round(),
 * the format-spec mini-language for int, float and str, and int()/float() parsing. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/num.h"
#include "vm/str.h"
#include "vm/unicode.h"

/* ---- float repr ------------------------------------------------------------------------ */

/* Shortest decimal digits that round-trip x (x finite, > 0): digits without the point and
 * the position of the decimal point (CPython's decpt: value = 0.DIGITS * 10**decpt). */
static int shortest_digits(double x, char *digits, int *decpt) {
    char buf[40];
    for (int p = 0; p < 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p, x);
        if (strtod(buf, NULL) == x) break;
    }
    /* buf = d[.ddd]e[+-]XX */
    int n = 0;
    const char *s = buf;
    for (; *s && *s != 'e'; s++)
        if (*s != '.') digits[n++] = *s;
    int exp = atoi(s + 1);
    while (n > 1 && digits[n - 1] == '0') n--;
    digits[n] = 0;
    *decpt = exp + 1;
    return n;
}

void float_repr(double x, char *out, size_t cap) {
    if (isnan(x)) { snprintf(out, cap, "nan"); return; }
    if (isinf(x)) { snprintf(out, cap, x > 0 ? "inf" : "-inf"); return; }
    if (x == 0) { snprintf(out, cap, signbit(x) ? "-0.0" : "0.0"); return; }
    char digits[32], buf[64];
    int decpt;
    const char *sign = x < 0 ? "-" : "";
    int n = shortest_digits(fabs(x), digits, &decpt);
    int k = 0;
    if (decpt <= -4 || decpt > 16) {
        k += snprintf(buf + k, sizeof buf - k, "%s%c", sign, digits[0]);
        if (n > 1) k += snprintf(buf + k, sizeof buf - k, ".%s", digits + 1);
        int e = decpt - 1;
        snprintf(buf + k, sizeof buf - k, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    } else if (decpt <= 0) {
        k += snprintf(buf + k, sizeof buf - k, "%s0.", sign);
        for (int i = 0; i < -decpt; i++) buf[k++] = '0';
        snprintf(buf + k, sizeof buf - k, "%s", digits);
    } else if (decpt < n) {
        k += snprintf(buf + k, sizeof buf - k, "%s%.*s.%s", sign, decpt, digits, digits + decpt);
    } else {
        k += snprintf(buf + k, sizeof buf - k, "%s%s", sign, digits);
        for (int i = n; i < decpt; i++) buf[k++] = '0';
        snprintf(buf + k, sizeof buf - k, ".0");
    }
    snprintf(out, cap, "%s", buf);
}

double float_round(double x, int64_t nd) {
    if (!isfinite(x) || x == 0) return x;
    if (nd > 22) return x;
    if (nd >= 0) {
        /* printf rounds the exact binary value correctly (ties to even), as CPython's dtoa
         * mode 3 does; reading it back gives the nearest double to the rounded decimal. */
        char buf[400];
        snprintf(buf, sizeof buf, "%.*f", (int)nd, x);
        return strtod(buf, NULL);
    }
    if (nd < -308) return copysign(0.0, x);
    double p = pow(10.0, (double)-nd);
    double y = nearbyint(x / p) * p;
    if (!isfinite(y)) return x;
    return y == 0 ? copysign(0.0, x) : y;
}

/* ---- the format-spec mini-language ---------------------------------------------------- */

typedef struct Spec {
    char fill[5];          /* one code point, UTF-8 */
    char align, sign, type, grouping;
    bool alt, zero, has_fill;
    int64_t width, precision;
} Spec;

/* what: the type name for messages ("int", "float", "str"); numbers align right by default
 * and take '0' as "fill with zeros after the sign", strings only as the fill. */
static int parse_spec(VM *vm, StrObj *so, Spec *sp, const char *what) {
    memset(sp, 0, sizeof *sp);
    strcpy(sp->fill, " ");
    sp->width = -1;
    sp->precision = -1;
    const char *s = so ? so->data : "";
    int64_t n = so ? so->len : 0, i = 0;
    int64_t fl = 0;   /* byte length of a leading code point */
    if (n) {
        int64_t p = 0;
        utf8_decode(s, n, &p);
        fl = p;
    }
    if (n > fl && strchr("<>=^", s[fl]) && s[fl]) {
        memcpy(sp->fill, s, (size_t)fl);
        sp->fill[fl] = 0;
        sp->has_fill = true;
        sp->align = s[fl];
        i = fl + 1;
    } else if (n >= 1 && strchr("<>=^", s[0]) && s[0]) {
        sp->align = s[0];
        i = 1;
    }
    bool number = what[0] != 's';
    if (i < n && strchr("+- ", s[i]) && s[i]) sp->sign = s[i++];
    if (i < n && s[i] == 'z') i++;
    if (i < n && s[i] == '#') { sp->alt = true; i++; }
    if (i < n && s[i] == '0') {
        sp->zero = true;
        if (!sp->has_fill) strcpy(sp->fill, "0");
        if (!sp->align && number) sp->align = '=';
        i++;
    }
    if (i < n && isdigit((unsigned char)s[i])) {
        sp->width = 0;
        while (i < n && isdigit((unsigned char)s[i])) sp->width = sp->width * 10 + (s[i++] - '0');
    }
    if (i < n && (s[i] == ',' || s[i] == '_')) sp->grouping = s[i++];
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || !isdigit((unsigned char)s[i])) {
            vm_raise(vm, vm->e_ValueError, "Format specifier missing precision");
            return -1;
        }
        sp->precision = 0;
        while (i < n && isdigit((unsigned char)s[i])) sp->precision = sp->precision * 10 + (s[i++] - '0');
    }
    if (i < n) sp->type = s[i++];
    if (i < n) {
        vm_raise(vm, vm->e_ValueError, "Invalid format specifier '%s' for object of type '%s'",
                 s, what);
        return -1;
    }
    if (sp->grouping) {
        /* PEP 378 / PEP 515: ',' with decimal and float types; '_' also with b/o/x/X */
        char t = sp->type ? sp->type : (what[0] == 'i' ? 'd' : what[0] == 's' ? 's' : 0);
        bool ok = t == 0 || strchr("defgEFG%", t) || (sp->grouping == '_' && strchr("boxX", t));
        if (!ok) {
            vm_raise(vm, vm->e_ValueError, "Cannot specify '%c' with '%c'.", sp->grouping, t);
            return -1;
        }
    }
    return 0;
}

/* Digits with a separator every `every` digits.  With zero padding ('0' fill, '=' align)
 * the leading zeros are grouped too, until the result is at least min_width characters long
 * (CPython's InsertThousandsGrouping: "0_001_234" for format(1234, "09_d")). */
static void group_digits(StrBuf *out, const char *digits, int64_t n, char sep, int every, int64_t min_width) {
    char tmp[1200];
    int64_t k = sizeof tmp, remaining = n;
    bool first = true;
    for (;;) {
        int64_t l = every;
        int64_t lim = remaining > min_width ? remaining : min_width;
        if (lim < 1) lim = 1;
        if (l > lim) l = lim;
        int64_t nchars = remaining < l ? remaining : l;
        int64_t nzeros = l - nchars;
        if (k < l + 2) break;
        if (!first) tmp[--k] = sep;
        first = false;
        for (int64_t i = 0; i < nchars; i++) tmp[--k] = digits[--remaining];
        for (int64_t i = 0; i < nzeros; i++) tmp[--k] = '0';
        min_width -= l;
        if (remaining <= 0 && min_width <= 0) break;
        min_width -= 1;
    }
    sb_add(out, tmp + k, (int64_t)sizeof tmp - k);
}

/* Width the digits must fill when zero padding groups them, else 0. */
static int64_t zero_pad_width(const Spec *sp, int64_t other_chars) {
    if (!sp->grouping || strcmp(sp->fill, "0") != 0 || sp->align != '=' || sp->width < 0) return 0;
    return sp->width > other_chars ? sp->width - other_chars : 0;
}

/* Lay out sign + prefix + body to width per fill/align. */
static Value pad(VM *vm, Spec *sp, const char *sign, const char *prefix, const char *body,
                 int64_t body_len, char default_align) {
    char align = sp->align ? sp->align : default_align;
    int64_t len = (int64_t)strlen(sign) + (int64_t)strlen(prefix) + utf8_count(body, body_len);
    int64_t padn = sp->width > len ? sp->width - len : 0;
    StrBuf b;
    sb_init(&b);
    int64_t left = 0, right = 0;
    if (align == '<') right = padn;
    else if (align == '>') left = padn;
    else if (align == '^') { left = padn / 2; right = padn - left; }
    for (int64_t i = 0; i < left; i++) sb_adds(&b, sp->fill);
    sb_adds(&b, sign);
    sb_adds(&b, prefix);
    if (align == '=')
        for (int64_t i = 0; i < padn; i++) sb_adds(&b, sp->fill);
    sb_add(&b, body, body_len);
    for (int64_t i = 0; i < right; i++) sb_adds(&b, sp->fill);
    StrObj *r = sb_finish(vm, &b);
    return r ? val_obj(r) : val_null();
}

static const char *sign_of(bool neg, char sign) {
    if (neg) return "-";
    if (sign == '+') return "+";
    if (sign == ' ') return " ";
    return "";
}

static Value format_double_spec(VM *vm, double v, Spec *sp, bool from_int);

Value format_int(VM *vm, Value iv, StrObj *spec) {
    Spec sp;
    if (parse_spec(vm, spec, &sp, "int") < 0) return val_null();
    if (sp.type && strchr("eEfFgG%", sp.type)) {
        double d;
        if (bigint_to_double(vm, iv, &d) < 0) return val_null();
        return format_double_spec(vm, d, &sp, true);
    }
    if (sp.precision >= 0) return vm_raise(vm, vm->e_ValueError, "Precision not allowed in integer format specifier");
    int base;
    const char *prefix = "";
    switch (sp.type) {
    case 0: case 'd': case 'n': base = 10; break;
    case 'x': case 'X':
        base = 16;
        if (sp.alt) prefix = sp.type == 'x' ? "0x" : "0X";
        break;
    case 'o':
        base = 8;
        if (sp.alt) prefix = "0o";
        break;
    case 'b':
        base = 2;
        if (sp.alt) prefix = "0b";
        break;
    case 'c': {
        if (sp.sign)
            return vm_raise(vm, vm->e_ValueError, "Sign not allowed with integer format specifier 'c'");
        if (sp.alt)
            return vm_raise(vm, vm->e_ValueError,
                            "Alternate form (#) not allowed with integer format specifier 'c'");
        int64_t v = 0;
        if (bigint_as_i64(vm, iv, &v) < 0) return val_null();
        if (v < 0 || v > 0x10FFFF) return vm_raise(vm, vm->e_OverflowError, "%%c arg not in range(0x110000)");
        char ch[4];
        int k = utf8_encode((uint32_t)v, ch);
        return pad(vm, &sp, "", "", ch, k, '<');
    }
    default:
        return vm_raise(vm, vm->e_ValueError, "Unknown format code '%c' for object of type 'int'", sp.type);
    }
    bool neg;
    char *digits = bigint_digits(vm, iv, base, &neg);
    if (!digits) return val_null();
    if (sp.type == 'X')
        for (char *p = digits; *p; p++) *p = (char)toupper((unsigned char)*p);
    int64_t nd = (int64_t)strlen(digits);
    StrBuf body;
    sb_init(&body);
    if (sp.grouping)
        group_digits(&body, digits, nd, sp.grouping,
                     (sp.type == 'x' || sp.type == 'X' || sp.type == 'o' || sp.type == 'b') ? 4 : 3,
                     zero_pad_width(&sp, (int64_t)strlen(sign_of(neg, sp.sign)) + (int64_t)strlen(prefix)));
    else sb_add(&body, digits, nd);
    free(digits);
    Value r = pad(vm, &sp, sign_of(neg, sp.sign), prefix, body.data ? body.data : "", body.len, '>');
    sb_free(&body);
    return r;
}

static Value format_double_spec(VM *vm, double v, Spec *sp, bool from_int) {
    char type = sp->type;
    int64_t prec = sp->precision;
    bool neg = signbit(v) && !isnan(v);
    double a = fabs(v);
    char buf[512];
    bool add_dot0 = false;
    if (!type) {
        if (prec < 0) {
            if (from_int) {
                snprintf(buf, sizeof buf, "%.0f", a);
            } else {
                float_repr(a, buf, sizeof buf);
                char *e = strchr(buf, 'e');
                if (sp->alt && e && !memchr(buf, '.', (size_t)(e - buf))) {
                    memmove(e + 1, e, strlen(e) + 1);   /* "1e-05" -> "1.e-05" */
                    *e = '.';
                }
            }
            goto have;
        }
        /* like 'g', but switching to exponent notation one digit earlier and keeping at
         * least one digit after the point (CPython's Py_DTSF_ADD_DOT_0 with 'g') */
        if (prec == 0) prec = 1;
        if (isfinite(a)) {
            char ebuf[512];
            snprintf(ebuf, sizeof ebuf, "%.*e", (int)prec - 1, a);
            int decpt = atoi(strchr(ebuf, 'e') + 1) + 1;
            if (decpt <= -4 || decpt > prec - 1) {
                char *e = strchr(ebuf, 'e');
                size_t mlen = (size_t)(e - ebuf);
                char mant[512];
                memcpy(mant, ebuf, mlen);
                mant[mlen] = 0;
                if (!sp->alt && strchr(mant, '.')) {
                    while (mlen && mant[mlen - 1] == '0') mant[--mlen] = 0;
                    if (mlen && mant[mlen - 1] == '.') mant[--mlen] = 0;
                } else if (sp->alt && !strchr(mant, '.')) {
                    strcat(mant, ".");
                }
                snprintf(buf, sizeof buf, "%s%s", mant, e);
            } else {
                snprintf(buf, sizeof buf, "%.*f", (int)(prec - decpt), a);
                size_t len = strlen(buf);
                if (!sp->alt && strchr(buf, '.')) {
                    while (len && buf[len - 1] == '0') buf[--len] = 0;
                }
                if (!strchr(buf, '.')) strcat(buf, ".");
                if (buf[strlen(buf) - 1] == '.') strcat(buf, "0");
            }
            goto have;
        }
        type = 'g';
        add_dot0 = true;
    }
    if (prec < 0) prec = 6;
    if (prec > 400) prec = 400;
    switch (type) {
    case 'f': case 'F':
        snprintf(buf, sizeof buf, sp->alt ? (type == 'f' ? "%#.*f" : "%#.*F") : (type == 'f' ? "%.*f" : "%.*F"),
                 (int)prec, a);
        break;
    case 'e': case 'E':
        snprintf(buf, sizeof buf, sp->alt ? (type == 'e' ? "%#.*e" : "%#.*E") : (type == 'e' ? "%.*e" : "%.*E"),
                 (int)prec, a);
        break;
    case 'g': case 'G': case 'n':
        if (prec == 0) prec = 1;
        snprintf(buf, sizeof buf, sp->alt ? (type == 'G' ? "%#.*G" : "%#.*g") : (type == 'G' ? "%.*G" : "%.*g"),
                 (int)prec, a);
        break;
    case '%': snprintf(buf, sizeof buf, sp->alt ? "%#.*f%%" : "%.*f%%", (int)prec, a * 100); break;
    default:
        return vm_raise(vm, vm->e_ValueError, "Unknown format code '%c' for object of type '%s'",
                        type, from_int ? "int" : "float");
    }
    if (!isfinite(a))
        snprintf(buf, sizeof buf, "%s%s",
                 isnan(a) ? ((type == 'F' || type == 'E' || type == 'G') ? "NAN" : "nan")
                          : ((type == 'F' || type == 'E' || type == 'G') ? "INF" : "inf"),
                 type == '%' ? "%" : "");
    if (add_dot0 && isfinite(a) && !strpbrk(buf, ".eE")) strcat(buf, ".0");
have:;
    if (isnan(v)) neg = false;
    StrBuf body;
    sb_init(&body);
    if (sp->grouping && isfinite(a)) {
        int64_t intlen = 0;
        while (buf[intlen] && isdigit((unsigned char)buf[intlen])) intlen++;
        group_digits(&body, buf, intlen, sp->grouping, 3,
                     zero_pad_width(sp, (int64_t)strlen(sign_of(neg, sp->sign)) + (int64_t)strlen(buf + intlen)));
        sb_adds(&body, buf + intlen);
    } else {
        sb_adds(&body, buf);
    }
    Value r = pad(vm, sp, sign_of(neg, sp->sign), "", body.data ? body.data : "", body.len, '>');
    sb_free(&body);
    return r;
}

/* complex.__format__ (CPython's format_complex_internal): both parts formatted as floats, the
 * imaginary one always signed; with no type code the repr-like form, a zero real part left out
 * and parentheses otherwise. */
Value format_complex(VM *vm, double re, double im, StrObj *spec) {
    Spec sp;
    if (parse_spec(vm, spec, &sp, "complex") < 0) return val_null();
    if (sp.zero && !sp.has_fill)
        return vm_raise(vm, vm->e_ValueError, "Zero padding is not allowed in complex format specifier");
    if (sp.align == '=') return vm_raise(vm, vm->e_ValueError, "'=' alignment flag is not allowed in complex format specifier");
    if (sp.type && !strchr("eEfFgGn", sp.type))
        return vm_raise(vm, vm->e_ValueError, "Unknown format code '%c' for object of type 'complex'", sp.type);
    bool skip_re = false, parens = false;
    Spec part = sp;
    part.width = -1;
    part.align = 0;
    strcpy(part.fill, " ");
    part.has_fill = false;
    part.zero = false;
    char res[600], ims[600];
    if (!sp.type) {
        if (re == 0 && !signbit(re)) skip_re = true;
        else parens = true;
        if (sp.precision >= 0) part.type = 'g';
    }
    if (part.type == 'n') part.type = 'g';
    /* each part through the float formatter, without padding */
    for (int k = 0; k < 2; k++) {
        if (k == 0 && skip_re) {
            res[0] = 0;
            continue;
        }
        double v = k == 0 ? re : im;
        Spec ps = part;
        if (k == 1 && !skip_re) ps.sign = '+';
        Value r;
        if (!sp.type && sp.precision < 0) {
            /* the repr form: shortest digits, no ".0" (repr(1+2j) is "(1+2j)") */
            char buf[64];
            float_repr(fabs(v), buf, sizeof buf);
            size_t n = strlen(buf);
            if (n > 2 && buf[n - 2] == '.' && buf[n - 1] == '0') buf[n - 2] = 0;
            bool neg = signbit(v) && !isnan(v);
            snprintf(k == 0 ? res : ims, 600, "%s%s", sign_of(neg, ps.sign), buf);
            continue;
        }
        r = format_double_spec(vm, v, &ps, false);
        if (val_is_null(r)) return r;
        snprintf(k == 0 ? res : ims, 600, "%s", AS_STR(r)->data);
    }
    char body[1300];
    snprintf(body, sizeof body, "%s%s%sj%s", parens ? "(" : "", res, ims, parens ? ")" : "");
    return pad(vm, &sp, "", "", body, (int64_t)strlen(body), '>');
}

Value format_float(VM *vm, double v, StrObj *spec) {
    Spec sp;
    if (parse_spec(vm, spec, &sp, "float") < 0) return val_null();
    return format_double_spec(vm, v, &sp, false);
}

Value format_str(VM *vm, StrObj *s, StrObj *spec) {
    if (!spec || spec->len == 0) return val_obj(s);
    Spec sp;
    if (parse_spec(vm, spec, &sp, "str") < 0) return val_null();
    if (sp.type && sp.type != 's')
        return vm_raise(vm, vm->e_ValueError, "Unknown format code '%c' for object of type 'str'", sp.type);
    if (sp.sign == ' ') return vm_raise(vm, vm->e_ValueError, "Space not allowed in string format specifier");
    if (sp.sign) return vm_raise(vm, vm->e_ValueError, "Sign not allowed in string format specifier");
    if (sp.alt)
        return vm_raise(vm, vm->e_ValueError, "Alternate form (#) not allowed in string format specifier");
    if (sp.align == '=')
        return vm_raise(vm, vm->e_ValueError, "'=' alignment not allowed in string format specifier");
    int64_t nbytes = s->len;
    if (sp.precision >= 0 && sp.precision < s->ncp) nbytes = str_byte_offset(s, sp.precision);
    return pad(vm, &sp, "", "", s->data, nbytes, '<');
}

/* ---- parsing -------------------------------------------------------------------------- */

static void strip_ws(const char **s, const char **e) {
    while (*s < *e && isspace((unsigned char)**s)) (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1])) (*e)--;
}

/* int() and float() accept any Unicode decimal digits and strip Unicode whitespace, as
 * CPython's _PyUnicode_TransformDecimalAndSpaceToASCII: map them to ASCII first.  Returns so
 * itself when it is ASCII, else a new string (NULL + MemoryError on failure). */
static StrObj *ascii_digits(VM *vm, StrObj *so) {
    if (so->len == so->ncp) return so;
    StrBuf b;
    sb_init(&b);
    int64_t pos = 0;
    while (pos < so->len) {
        uint32_t c = utf8_decode(so->data, so->len, &pos);
        int d = uni_decimal_value(c);
        if (c < 0x80) sb_addc(&b, (char)c);
        else if (d >= 0) sb_addc(&b, (char)('0' + d));
        else if (uni_is_space(c)) sb_addc(&b, ' ');
        else sb_addc(&b, '?');   /* anything else makes the literal invalid */
    }
    return sb_finish(vm, &b);
}

/* -u for u > 2**63 */
static Value bigint_from_mpz_neg_u64(VM *vm, uint64_t u) {
    mpz_t z;
    mpz_init_set_ui(z, u);
    mpz_neg(z, z);
    Value r = bigint_from_mpz(vm, z);
    mpz_clear(z);
    return r;
}

Value parse_int(VM *vm, StrObj *orig, int base) {
    StrObj *so = ascii_digits(vm, orig);
    if (!so) return val_null();
    const char *s = so->data, *e = so->data + so->len;
    strip_ws(&s, &e);
    bool neg = false;
    if (s < e && (*s == '+' || *s == '-')) neg = *s++ == '-';
    int b = base;
    if ((b == 0 || b == 16) && e - s > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { b = 16; s += 2; }
    else if ((b == 0 || b == 8) && e - s > 1 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) { b = 8; s += 2; }
    else if ((b == 0 || b == 2) && e - s > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) { b = 2; s += 2; }
    else if (b == 0) {
        b = 10;
        /* base 0 forbids leading zeros on non-zero decimals */
        if (e - s > 1 && s[0] == '0') {
            for (const char *p = s; p < e; p++)
                if (*p != '0' && *p != '_') goto bad;
        }
    }
    if (s >= e) goto bad;
    uint64_t acc = 0;
    bool any = false, last_us = true, wide = false;
    for (const char *p = s; p < e; p++) {
        if (*p == '_') {
            if (last_us) goto bad;
            last_us = true;
            continue;
        }
        int d;
        if (isdigit((unsigned char)*p)) d = *p - '0';
        else if (isalpha((unsigned char)*p)) d = tolower((unsigned char)*p) - 'a' + 10;
        else goto bad;
        if (d >= b) goto bad;
        if (!wide && acc > (UINT64_MAX - (uint64_t)d) / (uint64_t)b) wide = true;
        acc = acc * (uint64_t)b + (uint64_t)d;
        any = true;
        last_us = false;
    }
    if (!any || last_us) goto bad;
    if (!wide) {
        if (neg && acc <= (uint64_t)INT64_MAX + 1) return val_int((int64_t)(0 - acc));
        if (!neg && acc <= (uint64_t)INT64_MAX) return val_int((int64_t)acc);
        return neg ? bigint_from_mpz_neg_u64(vm, acc) : bigint_from_u64(vm, acc);
    }
    {
        /* a big int: the digits without underscores, to GMP */
        char *digits = malloc((size_t)(e - s) + 1);
        if (!digits) return vm_no_memory(vm);
        int64_t n = 0;
        for (const char *p = s; p < e; p++)
            if (*p != '_') digits[n++] = *p;
        digits[n] = 0;
        Value r = bigint_parse_digits(vm, digits, b, neg);
        free(digits);
        return r;
    }
bad:;
    StrObj *r = str_repr(vm, orig);
    if (!r) return val_null();
    return vm_raise(vm, vm->e_ValueError, "invalid literal for int() with base %d: %s", base, r->data);
}

Value parse_float(VM *vm, StrObj *orig) {
    StrObj *so = ascii_digits(vm, orig);
    if (!so) return val_null();
    const char *s = so->data, *e = so->data + so->len;
    strip_ws(&s, &e);
    char buf[512];
    int64_t n = 0;
    if (e - s >= (int64_t)sizeof buf) goto bad;
    /* underscores only between digits (PEP 515) */
    for (const char *p = s; p < e; p++) {
        if (*p == '_') {
            if (p == s || p + 1 == e || !isdigit((unsigned char)p[-1]) || !isdigit((unsigned char)p[1]))
                goto bad;
            continue;
        }
        buf[n++] = *p;
    }
    buf[n] = 0;
    if (n == 0) goto bad;
    {
        const char *q = buf;
        if (*q == '+' || *q == '-') q++;
        if (strcasecmp(q, "inf") == 0 || strcasecmp(q, "infinity") == 0)
            return val_float(buf[0] == '-' ? -INFINITY : INFINITY);
        if (strcasecmp(q, "nan") == 0) return val_float(NAN);
        /* reject forms strtod accepts but Python does not (hex floats) */
        for (const char *p = q; *p; p++)
            if (!isdigit((unsigned char)*p) && !strchr(".eE+-", *p)) goto bad;
    }
    char *end;
    double d = strtod(buf, &end);
    if (*end) goto bad;
    return val_float(d);
bad:;
    StrObj *r = str_repr(vm, orig);
    if (!r) return val_null();
    return vm_raise(vm, vm->e_ValueError, "could not convert string to float: %s", r->data);
}
