/* vm/mod_unicodedata.c — the `unicodedata` module (CPython's Modules/unicodedata.c) over tables
 * generated from CPython 3.11's own Unicode 14.0.0 database (vm/gen_unicodedata.py): category,
 * bidirectional, combining, east_asian_width, mirrored, decomposition, decimal/digit/numeric,
 * normalize and is_normalized (NFC, NFD, NFKC, NFKD: full decomposition, canonical ordering,
 * canonical composition, Hangul syllables by algorithm), unidata_version.  The tables carry no
 * character names: name() and lookup() raise NotImplementedError, and the Unicode 3.2.0 database
 * (ucd_3_2_0, used by stringprep/IDNA) is not provided. */
#include <stdlib.h>
#include <string.h>

#include "vm/native.h"
#include "vm/str.h"

#include "vm/unicodedata_tables.inc"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static const UdRecord *record(uint32_t cp) {
    return &ud_records[ud_index2[ud_index1[cp >> 8]][cp & 255]];
}

/* the single code point of a one-character str argument */
static int char_arg(VM *vm, const char *fname, Value v, uint32_t *cp) {
    if (!val_is_str(vm, v) || AS_STR(v)->ncp != 1) {
        vm_raise(vm, vm->e_TypeError, "%s() argument must be a unicode character, not %s", fname, vm_type_name(vm, v));
        return -1;
    }
    int64_t pos = 0;
    *cp = utf8_decode(AS_STR(v)->data, AS_STR(v)->len, &pos);
    return 0;
}

static Value cstr(VM *vm, const char *s) {
    StrObj *o = str_from_c(vm, s);
    return o ? val_obj(o) : val_null();
}

static Value ud_category(ARGS) {
    uint32_t cp;
    if (char_arg(vm, "category", argv[0], &cp) < 0) return val_null();
    return cstr(vm, ud_cats[record(cp)->cat]);
}
static Value ud_bidirectional(ARGS) {
    uint32_t cp;
    if (char_arg(vm, "bidirectional", argv[0], &cp) < 0) return val_null();
    return cstr(vm, ud_bidi[record(cp)->bidi]);
}
static Value ud_east_asian_width(ARGS) {
    uint32_t cp;
    if (char_arg(vm, "east_asian_width", argv[0], &cp) < 0) return val_null();
    return cstr(vm, ud_eaw[record(cp)->eaw]);
}
static Value ud_combining(ARGS) {
    uint32_t cp;
    if (char_arg(vm, "combining", argv[0], &cp) < 0) return val_null();
    return val_int(record(cp)->combining);
}
static Value ud_mirrored(ARGS) {
    uint32_t cp;
    if (char_arg(vm, "mirrored", argv[0], &cp) < 0) return val_null();
    return val_int(record(cp)->mirrored);
}

/* decimal / digit / numeric (chr[, default]); which: 0, 1, 2 */
static Value ud_number(ARGS) {
    static const char *const names[] = {"decimal", "digit", "numeric"};
    static const char *const msgs[] = {"not a decimal", "not a digit", "not a numeric character"};
    int which = (int)(intptr_t)fn->data;
    if (native_check_args(vm, names[which], argc, kw, 1, 2) < 0) return val_null();
    uint32_t cp;
    if (char_arg(vm, names[which], argv[0], &cp) < 0) return val_null();
    const UdRecord *r = record(cp);
    if (which == 0 && r->decimal >= 0) return val_int(r->decimal);
    if (which == 1 && r->digit >= 0) return val_int(r->digit);
    if (which == 2 && r->numeric) return val_float(ud_numeric[r->numeric - 1]);
    if (argc == 2) return argv[1];
    return vm_raise(vm, vm->e_ValueError, "%s", msgs[which]);
}

static const UdDecomp *find_decomp(uint32_t cp) {
    size_t lo = 0, hi = sizeof ud_decomp / sizeof ud_decomp[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ud_decomp[mid].cp == cp) return &ud_decomp[mid];
        if (ud_decomp[mid].cp < cp) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

static Value ud_decomposition(ARGS) {
    uint32_t cp;
    if (char_arg(vm, "decomposition", argv[0], &cp) < 0) return val_null();
    const UdDecomp *d = find_decomp(cp);
    if (!d) return cstr(vm, "");
    const uint32_t *p = ud_decomp_data + d->off;
    StrBuf b = SB_INIT;
    if (p[0]) sb_adds(&b, ud_tags[p[0]]);
    for (uint32_t i = 0; i < p[1]; i++) sb_printf(&b, "%s%04X", i || p[0] ? " " : "", p[2 + i]);
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

static Value ud_no_names(ARGS) {
    return vm_raise(vm, vm->e_NotImplementedError, "unicodedata.%s: Ember's Unicode tables carry no character names",
                    (const char *)fn->data);
}

/* ---- normalization ------------------------------------------------------------------------------ */

enum { SBASE = 0xAC00, LBASE = 0x1100, VBASE = 0x1161, TBASE = 0x11A7, LCOUNT = 19, VCOUNT = 21, TCOUNT = 28,
       NCOUNT = VCOUNT * TCOUNT, SCOUNT = LCOUNT * NCOUNT };

typedef struct {
    uint32_t *v;
    size_t n, cap;
} CpBuf;

static bool cp_push(CpBuf *b, uint32_t c) {
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        uint32_t *v = realloc(b->v, sizeof(uint32_t) * cap);
        if (!v) return false;
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = c;
    return true;
}

static bool decompose(CpBuf *out, uint32_t cp, bool compat) {
    if (cp >= SBASE && cp < SBASE + SCOUNT) {
        uint32_t s = cp - SBASE, t = s % TCOUNT;
        if (!cp_push(out, LBASE + s / NCOUNT) || !cp_push(out, VBASE + (s % NCOUNT) / TCOUNT)) return false;
        return t ? cp_push(out, TBASE + t) : true;
    }
    const UdDecomp *d = find_decomp(cp);
    if (d && (ud_decomp_data[d->off] == 0 || compat)) {
        const uint32_t *p = ud_decomp_data + d->off;
        for (uint32_t i = 0; i < p[1]; i++)
            if (!decompose(out, p[2 + i], compat)) return false;
        return true;
    }
    return cp_push(out, cp);
}

static uint32_t compose_pair(uint32_t a, uint32_t b) {
    if (a >= LBASE && a < LBASE + LCOUNT && b >= VBASE && b < VBASE + VCOUNT)
        return SBASE + ((a - LBASE) * VCOUNT + (b - VBASE)) * TCOUNT;
    if (a >= SBASE && a < SBASE + SCOUNT && (a - SBASE) % TCOUNT == 0 && b > TBASE && b < TBASE + TCOUNT)
        return a + (b - TBASE);
    size_t lo = 0, hi = sizeof ud_comp / sizeof ud_comp[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const UdComp *c = &ud_comp[mid];
        if (c->first == a && c->second == b) return c->composite;
        if (c->first < a || (c->first == a && c->second < b)) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

/* form: bit 0 compatibility, bit 1 composition */
static StrObj *normalize(VM *vm, StrObj *s, int form) {
    CpBuf b = {0};
    bool ok = true;
    for (int64_t pos = 0; pos < s->len && ok;) ok = decompose(&b, utf8_decode(s->data, s->len, &pos), form & 1);
    if (!ok) {
        free(b.v);
        vm_no_memory(vm);
        return NULL;
    }
    /* canonical ordering: a stable sort of each run of non-starters by combining class */
    for (size_t i = 1; i < b.n; i++) {
        unsigned cc = record(b.v[i])->combining;
        if (!cc) continue;
        size_t j = i;
        while (j > 0 && record(b.v[j - 1])->combining > cc) {
            uint32_t t = b.v[j];
            b.v[j] = b.v[j - 1];
            b.v[j - 1] = t;
            j--;
        }
    }
    if (form & 2) {
        size_t n = 0, starter = (size_t)-1;
        unsigned last_cc = 0;
        for (size_t i = 0; i < b.n; i++) {
            uint32_t c = b.v[i];
            unsigned cc = record(c)->combining;
            if (starter != (size_t)-1) {
                bool adjacent = n - 1 == starter;
                if (adjacent || (last_cc != 0 && last_cc < cc)) {
                    uint32_t comp = compose_pair(b.v[starter], c);
                    if (comp) {
                        b.v[starter] = comp;
                        continue;
                    }
                }
            }
            if (cc == 0) starter = n;
            last_cc = cc;
            b.v[n++] = c;
        }
        b.n = n;
    }
    StrBuf sb = SB_INIT;
    for (size_t i = 0; i < b.n; i++) {
        char u[4];
        sb_add(&sb, u, (size_t)utf8_encode(b.v[i], u));
    }
    free(b.v);
    return sb_finish(vm, &sb);
}

static int form_arg(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw, StrObj **s) {
    if (native_check_args(vm, fname, argc, kw, 2, 2) < 0) return -1;
    if (!val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "%s() argument 1 must be str, not %s", fname, vm_type_name(vm, argv[0])),
               -1;
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "%s() argument 2 must be str, not %s", fname, vm_type_name(vm, argv[1])),
               -1;
    *s = AS_STR(argv[1]);
    static const char *const forms[] = {"NFD", "NFKD", "NFC", "NFKC"};
    for (int i = 0; i < 4; i++)
        if (str_eq_c(AS_STR(argv[0]), forms[i])) return i;
    vm_raise(vm, vm->e_ValueError, "invalid normalization form");
    return -1;
}

static Value ud_normalize(ARGS) {
    StrObj *s;
    int form = form_arg(vm, "normalize", argc, argv, kw, &s);
    if (form < 0) return val_null();
    StrObj *r = normalize(vm, s, form);
    if (!r) return val_null();
    /* an unchanged str is returned as it is, as CPython does */
    return str_eq(r, s) && s->hdr.type == vm->t_str ? val_obj(s) : val_obj(r);
}

static Value ud_is_normalized(ARGS) {
    StrObj *s;
    int form = form_arg(vm, "is_normalized", argc, argv, kw, &s);
    if (form < 0) return val_null();
    StrObj *r = normalize(vm, s, form);
    return r ? val_bool(str_eq(r, s)) : val_null();
}

int unicodedata_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"category", ud_category, ARITY_O}, {"bidirectional", ud_bidirectional, ARITY_O},
        {"east_asian_width", ud_east_asian_width, ARITY_O}, {"combining", ud_combining, ARITY_O},
        {"mirrored", ud_mirrored, ARITY_O}, {"decomposition", ud_decomposition, ARITY_O},
        {"decimal", ud_number, 0, (void *)0}, {"digit", ud_number, 0, (void *)1}, {"numeric", ud_number, 0, (void *)2},
        {"name", ud_no_names, 0, (void *)"name"}, {"lookup", ud_no_names, 0, (void *)"lookup"},
        {"normalize", ud_normalize}, {"is_normalized", ud_is_normalized}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0 || module_set(vm, mod, "unidata_version", cstr(vm, UD_VERSION)) < 0)
        return -1;
    return 0;
}
