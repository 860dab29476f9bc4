/* vm/mod_sre.c — the `_sre` module: the regular-expression engine under CPython's own
 * re/_parser.py and re/_compiler.py.  `_sre.compile(pattern, flags, code, groups, groupindex,
 * indexgroup)` wraps the code list the compiler produced in a Pattern; Pattern's methods
 * (match, fullmatch, search, findall, finditer, sub, subn, split, scanner) run the engine in
 * vm/sre_engine.h over the subject text; Match and SRE_Scanner are the results.  Semantics
 * and messages are CPython 3.11's (Modules/_sre/sre.c).
 *
 * Subject text.  Bytes and ASCII str are matched in place as 1-byte characters.  Other str
 * (UTF-8 inside Ember) is decoded once per call into code points (1-byte when all are below
 * 256, else 4-byte), with a table from code-point index to byte offset so that results are
 * cut from the original UTF-8 without re-encoding.  Positions the API shows are code-point
 * indices, as in CPython. */
#include <stdlib.h>
#include <string.h>

#include "vm/bigint.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/iter.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"
#include "vm/unicode.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

#define SRE_MAGIC 20220615
#define SRE_MAXREPEAT ((int64_t)UINT32_MAX)
#define SRE_MAXGROUPS ((int64_t)INT32_MAX / 2)

typedef uint32_t SreCode;

/* Opcodes, in re/_constants.py's order (MAGIC 20220615). */
enum {
    SRE_OP_FAILURE, SRE_OP_SUCCESS, SRE_OP_ANY, SRE_OP_ANY_ALL, SRE_OP_ASSERT, SRE_OP_ASSERT_NOT,
    SRE_OP_AT, SRE_OP_BRANCH, SRE_OP_CATEGORY, SRE_OP_CHARSET, SRE_OP_BIGCHARSET, SRE_OP_GROUPREF,
    SRE_OP_GROUPREF_EXISTS, SRE_OP_IN, SRE_OP_INFO, SRE_OP_JUMP, SRE_OP_LITERAL, SRE_OP_MARK,
    SRE_OP_MAX_UNTIL, SRE_OP_MIN_UNTIL, SRE_OP_NOT_LITERAL, SRE_OP_NEGATE, SRE_OP_RANGE,
    SRE_OP_REPEAT, SRE_OP_REPEAT_ONE, SRE_OP_SUBPATTERN, SRE_OP_MIN_REPEAT_ONE, SRE_OP_ATOMIC_GROUP,
    SRE_OP_POSSESSIVE_REPEAT, SRE_OP_POSSESSIVE_REPEAT_ONE, SRE_OP_GROUPREF_IGNORE,
    SRE_OP_IN_IGNORE, SRE_OP_LITERAL_IGNORE, SRE_OP_NOT_LITERAL_IGNORE, SRE_OP_GROUPREF_LOC_IGNORE,
    SRE_OP_IN_LOC_IGNORE, SRE_OP_LITERAL_LOC_IGNORE, SRE_OP_NOT_LITERAL_LOC_IGNORE,
    SRE_OP_GROUPREF_UNI_IGNORE, SRE_OP_IN_UNI_IGNORE, SRE_OP_LITERAL_UNI_IGNORE,
    SRE_OP_NOT_LITERAL_UNI_IGNORE, SRE_OP_RANGE_UNI_IGNORE,
};
enum {
    SRE_AT_BEGINNING, SRE_AT_BEGINNING_LINE, SRE_AT_BEGINNING_STRING, SRE_AT_BOUNDARY,
    SRE_AT_NON_BOUNDARY, SRE_AT_END, SRE_AT_END_LINE, SRE_AT_END_STRING, SRE_AT_LOC_BOUNDARY,
    SRE_AT_LOC_NON_BOUNDARY, SRE_AT_UNI_BOUNDARY, SRE_AT_UNI_NON_BOUNDARY,
};
enum {
    SRE_CATEGORY_DIGIT, SRE_CATEGORY_NOT_DIGIT, SRE_CATEGORY_SPACE, SRE_CATEGORY_NOT_SPACE,
    SRE_CATEGORY_WORD, SRE_CATEGORY_NOT_WORD, SRE_CATEGORY_LINEBREAK, SRE_CATEGORY_NOT_LINEBREAK,
    SRE_CATEGORY_LOC_WORD, SRE_CATEGORY_LOC_NOT_WORD, SRE_CATEGORY_UNI_DIGIT,
    SRE_CATEGORY_UNI_NOT_DIGIT, SRE_CATEGORY_UNI_SPACE, SRE_CATEGORY_UNI_NOT_SPACE,
    SRE_CATEGORY_UNI_WORD, SRE_CATEGORY_UNI_NOT_WORD, SRE_CATEGORY_UNI_LINEBREAK,
    SRE_CATEGORY_UNI_NOT_LINEBREAK,
};
enum { SRE_INFO_PREFIX = 1, SRE_INFO_LITERAL = 2, SRE_INFO_CHARSET = 4 };
enum { SRE_FLAG_TEMPLATE = 1, SRE_FLAG_IGNORECASE = 2, SRE_FLAG_LOCALE = 4, SRE_FLAG_MULTILINE = 8,
       SRE_FLAG_DOTALL = 16, SRE_FLAG_UNICODE = 32, SRE_FLAG_VERBOSE = 64, SRE_FLAG_DEBUG = 128,
       SRE_FLAG_ASCII = 256 };

#define SRE_ERROR_ILLEGAL (-1)
#define SRE_ERROR_STATE (-2)
#define SRE_ERROR_MEMORY (-9)

enum {
    JUMP_NONE, JUMP_MAX_UNTIL_1, JUMP_MAX_UNTIL_2, JUMP_MAX_UNTIL_3, JUMP_MIN_UNTIL_1,
    JUMP_MIN_UNTIL_2, JUMP_MIN_UNTIL_3, JUMP_REPEAT, JUMP_REPEAT_ONE_1, JUMP_REPEAT_ONE_2,
    JUMP_MIN_REPEAT_ONE, JUMP_BRANCH, JUMP_ASSERT, JUMP_ASSERT_NOT, JUMP_POSS_REPEAT_1,
    JUMP_POSS_REPEAT_2, JUMP_ATOMIC_GROUP,
};

/* ---- character classes ---------------------------------------------------------------- */

static bool sre_is_linebreak(uint32_t ch) { return ch == '\n'; }
static bool sre_is_digit(uint32_t ch) { return ch >= '0' && ch <= '9'; }
static bool sre_is_space(uint32_t ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); }
static bool sre_is_alnum(uint32_t ch) {
    return sre_is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}
static bool sre_is_word(uint32_t ch) { return ch < 128 && (sre_is_alnum(ch) || ch == '_'); }
/* LOCALE: Ember runs in the C locale's character classes (ASCII), as CPython does under a
 * UTF-8 locale for code points 128-255. */
static bool sre_loc_is_word(uint32_t ch) { return sre_is_word(ch); }
static uint32_t sre_lower_ascii(uint32_t ch) { return ch < 128 && ch >= 'A' && ch <= 'Z' ? ch + 32 : ch; }
static uint32_t sre_upper_ascii(uint32_t ch) { return ch < 128 && ch >= 'a' && ch <= 'z' ? ch - 32 : ch; }
static uint32_t sre_lower_locale(uint32_t ch) { return sre_lower_ascii(ch); }
static uint32_t sre_upper_locale(uint32_t ch) { return sre_upper_ascii(ch); }

static bool sre_uni_is_linebreak(uint32_t ch) {
    switch (ch) {
    case 0x0a: case 0x0b: case 0x0c: case 0x0d: case 0x1c: case 0x1d: case 0x1e: case 0x85:
    case 0x2028: case 0x2029: return true;
    default: return false;
    }
}
static bool sre_uni_is_alnum(uint32_t ch) {
    if (ch < 128) return sre_is_alnum(ch);
    return uni_is_alpha(ch) || uni_is_decimal(ch) || uni_is_digit(ch) || uni_is_numeric(ch);
}
static bool sre_uni_is_word(uint32_t ch) { return ch == '_' || sre_uni_is_alnum(ch); }

/* The case mappings sre uses (CPython's _PyUnicode_ToLowercase/_ToUppercase): the first code
 * point of the full mapping, so U+0130 lowers to 'i' and U+00DF uppers to 'S'. */
static uint32_t sre_lower_unicode(uint32_t ch) {
    if (ch < 128) return sre_lower_ascii(ch);
    unsigned out[3];
    uni_to_lower(ch, out);
    return out[0];
}
static uint32_t sre_upper_unicode(uint32_t ch) {
    if (ch < 128) return sre_upper_ascii(ch);
    unsigned out[3];
    uni_to_upper(ch, out);
    return out[0];
}

static bool sre_char_loc_ignore(uint32_t pattern, uint32_t ch) {
    return ch == pattern || sre_lower_locale(ch) == pattern || sre_upper_locale(ch) == pattern;
}

static bool sre_category(SreCode category, uint32_t ch) {
    switch (category) {
    case SRE_CATEGORY_DIGIT: return sre_is_digit(ch);
    case SRE_CATEGORY_NOT_DIGIT: return !sre_is_digit(ch);
    case SRE_CATEGORY_SPACE: return sre_is_space(ch);
    case SRE_CATEGORY_NOT_SPACE: return !sre_is_space(ch);
    case SRE_CATEGORY_WORD: return sre_is_word(ch);
    case SRE_CATEGORY_NOT_WORD: return !sre_is_word(ch);
    case SRE_CATEGORY_LINEBREAK: return sre_is_linebreak(ch);
    case SRE_CATEGORY_NOT_LINEBREAK: return !sre_is_linebreak(ch);
    case SRE_CATEGORY_LOC_WORD: return sre_loc_is_word(ch);
    case SRE_CATEGORY_LOC_NOT_WORD: return !sre_loc_is_word(ch);
    case SRE_CATEGORY_UNI_DIGIT: return ch < 128 ? sre_is_digit(ch) : uni_is_decimal(ch);
    case SRE_CATEGORY_UNI_NOT_DIGIT: return !(ch < 128 ? sre_is_digit(ch) : uni_is_decimal(ch));
    case SRE_CATEGORY_UNI_SPACE: return ch < 128 ? sre_is_space(ch) || (ch >= 0x1c && ch <= 0x1f) : uni_is_space(ch);
    case SRE_CATEGORY_UNI_NOT_SPACE: return !(ch < 128 ? sre_is_space(ch) || (ch >= 0x1c && ch <= 0x1f) : uni_is_space(ch));
    case SRE_CATEGORY_UNI_WORD: return sre_uni_is_word(ch);
    case SRE_CATEGORY_UNI_NOT_WORD: return !sre_uni_is_word(ch);
    case SRE_CATEGORY_UNI_LINEBREAK: return sre_uni_is_linebreak(ch);
    case SRE_CATEGORY_UNI_NOT_LINEBREAK: return !sre_uni_is_linebreak(ch);
    }
    return false;
}

/* Is ch a member of the set at `set` (a sequence of set items ending in FAILURE)? */
static bool sre_charset(const SreCode *set, uint32_t ch) {
    bool ok = true;
    for (;;) {
        switch (*set++) {
        case SRE_OP_FAILURE: return !ok;
        case SRE_OP_LITERAL:
            if (ch == set[0]) return ok;
            set++;
            break;
        case SRE_OP_CATEGORY:
            if (sre_category(set[0], ch)) return ok;
            set++;
            break;
        case SRE_OP_CHARSET:
            /* <CHARSET> <256-bit bitmap> */
            if (ch < 256 && (set[ch / 32] & (1u << (ch & 31)))) return ok;
            set += 256 / 32;
            break;
        case SRE_OP_RANGE:
            if (set[0] <= ch && ch <= set[1]) return ok;
            set += 2;
            break;
        case SRE_OP_RANGE_UNI_IGNORE: {
            /* ch is already lower-cased */
            if (set[0] <= ch && ch <= set[1]) return ok;
            uint32_t uch = sre_upper_unicode(ch);
            if (set[0] <= uch && uch <= set[1]) return ok;
            set += 2;
            break;
        }
        case SRE_OP_NEGATE: ok = !ok; break;
        case SRE_OP_BIGCHARSET: {
            /* <BIGCHARSET> <blockcount> <256 block indices as bytes> <blocks> */
            SreCode count = *set++;
            int64_t block = ch < 0x10000u ? ((const unsigned char *)set)[ch >> 8] : -1;
            set += 256 / sizeof(SreCode);
            if (block >= 0 && (set[(block * 256 + (ch & 255)) / 32] & (1u << (ch & 31)))) return ok;
            set += count * (256 / 32);
            break;
        }
        default: return false;   /* the validator keeps other opcodes out */
        }
    }
}

static bool sre_charset_loc_ignore(const SreCode *set, uint32_t ch) {
    uint32_t lo = sre_lower_locale(ch);
    if (sre_charset(set, lo)) return true;
    uint32_t up = sre_upper_locale(ch);
    return up != lo && sre_charset(set, up);
}

/* ---- matching state ------------------------------------------------------------------- */

typedef struct SreRepeat {
    int64_t count;
    const SreCode *pattern;   /* points at the REPEAT operator's arguments */
    const void *last_ptr;     /* zero-width match protection */
    struct SreRepeat *prev;   /* the enclosing repeat */
    struct SreRepeat *next_all;
} SreRepeat;

typedef struct SreState {
    const void *ptr, *start, *end, *beginning;
    int64_t pos, endpos;
    int charsize;             /* 1 or 4 */
    bool isbytes, match_all, must_advance;
    int lastmark, lastindex;
    const void **mark;        /* 2 per group */
    SreRepeat *repeat;        /* innermost active repeat */
    SreRepeat *rep_free;      /* records to reuse */
    SreRepeat *rep_all;       /* every record allocated, freed at fini */
    char *data_stack;
    size_t data_stack_size, data_stack_base;
    /* the subject */
    Value string;
    const char *text;         /* UTF-8 or bytes of the subject */
    void *decoded;            /* owned code-point buffer for non-ASCII str, or NULL */
    int64_t *boff;            /* code point index -> byte offset (non-ASCII str), n+1 entries */
    int64_t length;           /* in characters */
} SreState;

static int sre_data_stack_grow(SreState *state, size_t size) {
    size_t minsize = state->data_stack_base + size;
    if (minsize <= state->data_stack_size) return 0;
    size_t cap = minsize + minsize / 4 + 1024;
    char *p = realloc(state->data_stack, cap);
    if (!p) return -1;
    state->data_stack = p;
    state->data_stack_size = cap;
    return 0;
}

static SreRepeat *sre_repeat_new(SreState *state) {
    SreRepeat *r = state->rep_free;
    if (r) {
        state->rep_free = r->prev;
        return r;
    }
    r = malloc(sizeof *r);
    if (!r) return NULL;
    r->next_all = state->rep_all;
    state->rep_all = r;
    return r;
}

static void sre_repeat_free(SreState *state, SreRepeat *r) {
    r->prev = state->rep_free;
    state->rep_free = r;
}

#define SRE_CHAR uint8_t
#define SRE(F) sre_u8_##F
#include "vm/sre_engine.h"
#undef SRE_CHAR
#undef SRE
#define SRE_CHAR uint32_t
#define SRE(F) sre_u32_##F
#include "vm/sre_engine.h"
#undef SRE_CHAR
#undef SRE

/* ---- objects -------------------------------------------------------------------------- */

typedef struct PatternObj {
    Obj hdr;
    Value pattern;            /* the source str/bytes, or None */
    int64_t flags;
    int64_t groups;           /* capturing groups, not counting group 0 */
    DictObj *groupindex;      /* name -> number */
    TupleObj *indexgroup;     /* number -> name or None */
    TupleObj *types;          /* (Pattern, Match, Scanner) types, shared */
    bool isbytes;
    int64_t codesize;
    SreCode code[];
} PatternObj;

typedef struct MatchObj {
    Obj hdr;
    Value string;
    PatternObj *pattern;
    TupleObj *regs;           /* cached .regs, or NULL */
    int64_t pos, endpos, lastindex;
    int64_t ngroups;          /* groups + 1 */
    bool isbytes;
    int64_t mark[];           /* [2*ngroups] code-point spans (-1 unset), then [2*ngroups] byte offsets */
} MatchObj;

typedef struct ScannerObj {
    Obj hdr;
    PatternObj *pattern;
    Value string;
    SreState *state;          /* malloc'd; NULL once finalized */
    bool exhausted;
    bool executing;
} ScannerObj;

enum { SRE_T_PATTERN, SRE_T_MATCH, SRE_T_SCANNER, SRE_T__COUNT };

static void pattern_trace(VM *vm, Obj *o) {
    PatternObj *p = (PatternObj *)o;
    gc_mark_value(vm, p->pattern);
    gc_mark(vm, p->groupindex);
    gc_mark(vm, p->indexgroup);
    gc_mark(vm, p->types);
}

static void match_trace(VM *vm, Obj *o) {
    MatchObj *m = (MatchObj *)o;
    gc_mark_value(vm, m->string);
    gc_mark(vm, m->pattern);
    gc_mark(vm, m->regs);
}

static void scanner_trace(VM *vm, Obj *o) {
    ScannerObj *s = (ScannerObj *)o;
    gc_mark(vm, s->pattern);
    gc_mark_value(vm, s->string);
}

static void state_fini(SreState *state) {
    free(state->data_stack);
    free(state->mark);
    free(state->decoded);
    free(state->boff);
    for (SreRepeat *r = state->rep_all, *n; r; r = n) {
        n = r->next_all;
        free(r);
    }
    memset(state, 0, sizeof *state);
}

static void scanner_finalize(VM *vm, Obj *o) {
    ScannerObj *s = (ScannerObj *)o;
    if (s->state) {
        state_fini(s->state);
        free(s->state);
        s->state = NULL;
    }
}

static PatternObj *self_pattern(Value v) { return (PatternObj *)v.as.o; }

/* ---- subject text --------------------------------------------------------------------- */

/* Fill state's subject fields from a str or bytes; decodes non-ASCII text. */
static int state_set_text(VM *vm, SreState *state, Value string) {
    state->string = string;
    if (string.tag == VAL_OBJ && vm_isinstance_type(vm, string, vm->t_str)) {
        StrObj *s = AS_STR(string);
        state->isbytes = false;
        state->text = s->data;
        state->length = s->ncp;
        if (str_is_ascii(s)) {
            state->charsize = 1;
            state->beginning = s->data;
            return 0;
        }
        bool wide = false;
        int64_t pos = 0, n = s->ncp;
        state->boff = malloc(sizeof(int64_t) * ((size_t)n + 1));
        uint32_t *cps = malloc(sizeof(uint32_t) * ((size_t)n + 1));
        if (!state->boff || !cps) {
            free(cps);
            vm_no_memory(vm);
            return -1;
        }
        for (int64_t i = 0; i < n; i++) {
            state->boff[i] = pos;
            cps[i] = utf8_decode(s->data, s->len, &pos);
            if (cps[i] > 255) wide = true;
        }
        state->boff[n] = pos;
        if (wide) {
            state->charsize = 4;
            state->decoded = cps;
        } else {
            uint8_t *b = malloc((size_t)n + 1);
            if (!b) {
                free(cps);
                vm_no_memory(vm);
                return -1;
            }
            for (int64_t i = 0; i < n; i++) b[i] = (uint8_t)cps[i];
            free(cps);
            state->charsize = 1;
            state->decoded = b;
        }
        state->beginning = state->decoded;
        return 0;
    }
    if (string.tag == VAL_OBJ && vm_isinstance_type(vm, string, vm->t_bytes)) {
        BytesObj *b = (BytesObj *)string.as.o;
        state->isbytes = true;
        state->text = (const char *)b->data;
        state->length = b->len;
        state->charsize = 1;
        state->beginning = b->data;
        return 0;
    }
    vm_raise(vm, vm->e_TypeError, "expected string or bytes-like object, got '%s'", vm_type_name(vm, string));
    return -1;
}

static int state_init(VM *vm, SreState *state, PatternObj *pat, Value string, int64_t start, int64_t end) {
    memset(state, 0, sizeof *state);
    state->lastmark = state->lastindex = -1;
    if (state_set_text(vm, state, string) < 0) goto fail;
    if (state->isbytes && !pat->isbytes) {
        vm_raise(vm, vm->e_TypeError, "cannot use a string pattern on a bytes-like object");
        goto fail;
    }
    if (!state->isbytes && pat->isbytes) {
        vm_raise(vm, vm->e_TypeError, "cannot use a bytes pattern on a string-like object");
        goto fail;
    }
    state->mark = calloc((size_t)(pat->groups * 2 + 2), sizeof(void *));
    if (!state->mark) {
        vm_no_memory(vm);
        goto fail;
    }
    int64_t length = state->length;
    if (start < 0) start = 0;
    else if (start > length) start = length;
    if (end < 0) end = 0;
    else if (end > length) end = length;
    state->pos = start;
    state->endpos = end;
    state->start = (const char *)state->beginning + start * state->charsize;
    state->end = (const char *)state->beginning + end * state->charsize;
    state->ptr = state->start;
    return 0;
fail:
    state_fini(state);
    return -1;
}

static void state_reset(SreState *state) {
    state->lastmark = state->lastindex = -1;
    state->repeat = NULL;
    state->data_stack_base = 0;
}

static int64_t state_offset(const SreState *state, const void *p) {
    return ((const char *)p - (const char *)state->beginning) / state->charsize;
}

static int64_t state_byte(const SreState *state, int64_t i) { return state->boff ? state->boff[i] : i; }

/* The subject's characters [i, j) as a new str or bytes (the subject itself when whole and of
 * the exact type). */
static Value text_slice(VM *vm, Value string, bool isbytes, const char *text, int64_t b0, int64_t b1) {
    if (isbytes) {
        BytesObj *b = (BytesObj *)string.as.o;
        if (b0 == 0 && b1 == b->len && b->hdr.type == vm->t_bytes) return string;
        BytesObj *r = bytes_new(vm, (const uint8_t *)text + b0, b1 - b0);
        return r ? val_obj(r) : val_null();
    }
    StrObj *s = AS_STR(string);
    if (b0 == 0 && b1 == s->len && s->hdr.type == vm->t_str) return string;
    StrObj *r = str_new(vm, text + b0, b1 - b0);
    return r ? val_obj(r) : val_null();
}

static Value state_slice(VM *vm, SreState *state, int64_t i, int64_t j) {
    return text_slice(vm, state->string, state->isbytes, state->text, state_byte(state, i), state_byte(state, j));
}

/* Group `index` of the state's current match, or None / empty when it did not take part. */
static Value state_getslice(VM *vm, SreState *state, int64_t index, bool empty) {
    index = (index - 1) * 2;
    int64_t i, j;
    if (index >= state->lastmark || !state->mark[index] || !state->mark[index + 1]) {
        if (!empty) return val_none();
        i = j = 0;
    } else {
        i = state_offset(state, state->mark[index]);
        j = state_offset(state, state->mark[index + 1]);
        if (i > j)
            return vm_raise(vm, vm->e_SystemError,
                            "The span of capturing group is wrong, please report a bug for the re module.");
    }
    return state_slice(vm, state, i, j);
}

static int64_t sre_match_run(SreState *state, PatternObj *p) {
    state->ptr = state->start;
    return state->charsize == 1 ? sre_u8_match(state, p->code, 1) : sre_u32_match(state, p->code, 1);
}

static int64_t sre_search_run(SreState *state, PatternObj *p) {
    state->ptr = state->start;
    return state->charsize == 1 ? sre_u8_search(state, p->code) : sre_u32_search(state, p->code);
}

static Value sre_error(VM *vm, int64_t status) {
    if (status == SRE_ERROR_MEMORY) return vm_no_memory(vm);
    return vm_raise(vm, vm->e_RuntimeError, "internal error in regular expression engine");
}

/* native_parse_args with Argument Clinic's message for an unknown keyword. */
static int clinic_args(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw, int npos, int nreq,
                       const char *const *names, int nnames, Value *out) {
    for (int64_t k = 0; kw && k < kw->len; k++) {
        StrObj *kn = AS_STR(kw->items[k]);
        int j = strcmp(names[0], "self") == 0;
        while (j < nnames && !str_eq_c(kn, names[j])) j++;
        if (j == nnames) {
            vm_raise(vm, vm->e_TypeError, "'%s' is an invalid keyword argument for %s()", kn->data, fname);
            return -1;
        }
    }
    return native_parse_args(vm, fname, argc, argv, kw, npos, nreq, names, nnames, out);
}

/* ---- Match ---------------------------------------------------------------------------- */

static Value match_new(VM *vm, PatternObj *pat, SreState *state, int64_t status) {
    if (status == 0) return val_none();
    if (status < 0) return sre_error(vm, status);
    int64_t ng = pat->groups + 1;
    TypeObj *t = AS_TYPE(pat->types->items[SRE_T_MATCH]);
    MatchObj *m = gc_alloc(vm, t, sizeof(MatchObj) + sizeof(int64_t) * 4 * (size_t)ng);
    if (!m) return val_null();
    m->string = state->string;
    m->pattern = pat;
    m->isbytes = state->isbytes;
    m->ngroups = ng;
    int64_t *cp = m->mark, *by = m->mark + 2 * ng;
    cp[0] = state_offset(state, state->start);
    cp[1] = state_offset(state, state->ptr);
    for (int64_t i = 0, j = 0; i < pat->groups; i++, j += 2) {
        if (j + 1 <= state->lastmark && state->mark[j] && state->mark[j + 1]) {
            cp[j + 2] = state_offset(state, state->mark[j]);
            cp[j + 3] = state_offset(state, state->mark[j + 1]);
            if (cp[j + 2] > cp[j + 3])
                return vm_raise(vm, vm->e_SystemError,
                                "The span of capturing group is wrong, please report a bug for the re module.");
        } else {
            cp[j + 2] = cp[j + 3] = -1;
        }
    }
    for (int64_t k = 0; k < 2 * ng; k++) by[k] = cp[k] < 0 ? -1 : state_byte(state, cp[k]);
    m->pos = state->pos;
    m->endpos = state->endpos;
    m->lastindex = state->lastindex;
    return val_obj(m);
}

static const char *match_text(MatchObj *m) {
    return m->isbytes ? (const char *)((BytesObj *)m->string.as.o)->data : AS_STR(m->string)->data;
}

static Value match_slice(VM *vm, MatchObj *m, int64_t index, Value def) {
    int64_t *by = m->mark + 2 * m->ngroups;
    if (m->mark[index * 2] < 0) return def;
    return text_slice(vm, m->string, m->isbytes, match_text(m), by[index * 2], by[index * 2 + 1]);
}

/* A group given by number or name -> its index, or -1 + IndexError. */
static int64_t match_index(VM *vm, MatchObj *m, Value index) {
    int64_t i = -1;
    if (val_is_intlike(index)) {
        i = val_as_intlike(index);
    } else if (index.tag == VAL_OBJ && !vm_isinstance_type(vm, index, vm->t_str) &&
               !val_is_null(type_special(vm, vm_type_of(vm, index), SP_INDEX))) {
        if (vm_index(vm, index, &i) < 0) return -1;
    } else {
        Value v;
        int r = dict_lookup(vm, m->pattern->groupindex, index, &v);
        if (r < 0) {
            /* an unhashable key is simply not a group name */
            if (!vm_exc_matches(vm, vm->e_TypeError)) return -1;
            vm_clear_exc(vm);
        } else if (r && val_is_int(v)) {
            i = v.as.i;
        }
    }
    if (i < 0 || i >= m->ngroups) {
        vm_raise(vm, vm->e_IndexError, "no such group");
        return -1;
    }
    return i;
}

static Value match_group_value(VM *vm, MatchObj *m, Value index, Value def) {
    int64_t i = match_index(vm, m, index);
    if (i < 0) return val_null();
    return match_slice(vm, m, i, def);
}

static Value m_group(ARGS) {
    MatchObj *m = (MatchObj *)argv[0].as.o;
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "group() takes no keyword arguments");
    if (argc == 1) return match_slice(vm, m, 0, val_none());
    if (argc == 2) return match_group_value(vm, m, argv[1], val_none());
    TupleObj *t = tuple_new(vm, argc - 1);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    for (int i = 1; i < argc; i++) {
        Value v = match_group_value(vm, m, argv[i], val_none());
        if (val_is_null(v)) {
            vm_pop_root(vm);
            return v;
        }
        t->items[i - 1] = v;
    }
    vm_pop_root(vm);
    return val_obj(t);
}

static Value m_getitem(ARGS) {
    return match_group_value(vm, (MatchObj *)argv[0].as.o, argv[1], val_none());
}

static Value m_groups(ARGS) {
    static const char *const names[] = {"self", "default"};
    Value a[2];
    if (clinic_args(vm, "groups", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    Value def = val_is_null(a[1]) ? val_none() : a[1];
    MatchObj *m = (MatchObj *)argv[0].as.o;
    TupleObj *t = tuple_new(vm, m->ngroups - 1);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    for (int64_t i = 1; i < m->ngroups; i++) {
        Value v = match_slice(vm, m, i, def);
        if (val_is_null(v)) {
            vm_pop_root(vm);
            return v;
        }
        t->items[i - 1] = v;
    }
    vm_pop_root(vm);
    return val_obj(t);
}

static Value m_groupdict(ARGS) {
    static const char *const names[] = {"self", "default"};
    Value a[2];
    if (clinic_args(vm, "groupdict", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    Value def = val_is_null(a[1]) ? val_none() : a[1];
    MatchObj *m = (MatchObj *)argv[0].as.o;
    DictObj *d = dict_new(vm);
    if (!d) return val_null();
    vm_push_root(vm, val_obj(d));
    int64_t pos = 0;
    Value k, idx;
    while (dict_next(m->pattern->groupindex, &pos, &k, &idx)) {
        Value v = match_group_value(vm, m, k, def);
        if (val_is_null(v) || dict_set(vm, d, k, v) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    vm_pop_root(vm);
    return val_obj(d);
}

/* start/end/span: fn->data selects 0 start, 1 end, 2 span. */
static Value m_span(ARGS) {
    int which = (int)(intptr_t)fn->data;
    static const char *const fnames[] = {"start", "end", "span"};
    if (native_check_args(vm, fnames[which], argc, kw, 1, 2) < 0) return val_null();
    MatchObj *m = (MatchObj *)argv[0].as.o;
    int64_t i = 0;
    if (argc == 2 && (i = match_index(vm, m, argv[1])) < 0) return val_null();
    int64_t s = m->mark[2 * i], e = m->mark[2 * i + 1];
    if (which == 0) return val_int(s);
    if (which == 1) return val_int(e);
    TupleObj *t = tuple_pack(vm, 2, val_int(s), val_int(e));
    return t ? val_obj(t) : val_null();
}

static Value call_re_helper(VM *vm, const char *name, int n, Value *args) {
    Value mod = vm_import_module(vm, "re");
    if (val_is_null(mod)) return mod;
    Value f = vm_getattr_c(vm, mod, name);
    if (val_is_null(f)) return f;
    vm_push_root(vm, f);
    Value r = vm_call(vm, f, n, args, NULL);
    vm_pop_root(vm);
    return r;
}

static Value m_expand(ARGS) {
    if (native_check_args(vm, "expand", argc, kw, 2, 2) < 0) return val_null();
    MatchObj *m = (MatchObj *)argv[0].as.o;
    Value a[3] = {val_obj(m->pattern), argv[0], argv[1]};
    return call_re_helper(vm, "_expand", 3, a);
}

static Value m_repr(ARGS) {
    MatchObj *m = (MatchObj *)argv[0].as.o;
    Value g = match_slice(vm, m, 0, val_none());
    if (val_is_null(g)) return g;
    vm_push_root(vm, g);
    Value r = vm_repr(vm, g);
    vm_pop_root(vm);
    if (val_is_null(r)) return r;
    StrObj *rs = AS_STR(r);
    int64_t cut = rs->ncp > 50 ? str_byte_offset(rs, 50) : rs->len;
    StrObj *s = str_printf(vm, "<re.Match object; span=(%lld, %lld), match=%.*s>", (long long)m->mark[0],
                           (long long)m->mark[1], (int)cut, rs->data);
    return s ? val_obj(s) : val_null();
}

static Value m_copy(ARGS) { return argv[0]; }

static Value mg_string(VM *vm, Value s, void *c) { return ((MatchObj *)s.as.o)->string; }
static Value mg_re(VM *vm, Value s, void *c) { return val_obj(((MatchObj *)s.as.o)->pattern); }
static Value mg_pos(VM *vm, Value s, void *c) { return val_int(((MatchObj *)s.as.o)->pos); }
static Value mg_endpos(VM *vm, Value s, void *c) { return val_int(((MatchObj *)s.as.o)->endpos); }
static Value mg_lastindex(VM *vm, Value s, void *c) {
    MatchObj *m = (MatchObj *)s.as.o;
    return m->lastindex >= 0 ? val_int(m->lastindex) : val_none();
}
static Value mg_lastgroup(VM *vm, Value s, void *c) {
    MatchObj *m = (MatchObj *)s.as.o;
    TupleObj *ig = m->pattern->indexgroup;
    if (!ig || m->lastindex < 0 || m->lastindex >= ig->len) return val_none();
    return ig->items[m->lastindex];
}
static Value mg_regs(VM *vm, Value s, void *c) {
    MatchObj *m = (MatchObj *)s.as.o;
    if (m->regs) return val_obj(m->regs);
    TupleObj *t = tuple_new(vm, m->ngroups);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    for (int64_t i = 0; i < m->ngroups; i++) {
        TupleObj *p = tuple_pack(vm, 2, val_int(m->mark[2 * i]), val_int(m->mark[2 * i + 1]));
        if (!p) {
            vm_pop_root(vm);
            return val_null();
        }
        t->items[i] = val_obj(p);
    }
    vm_pop_root(vm);
    m->regs = t;
    return val_obj(t);
}

/* ---- Pattern -------------------------------------------------------------------------- */


/* Parse (string, pos=0, endpos=maxsize) for match/search/findall/finditer/scanner. */
static int parse_string_pos(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw,
                            Value *string, int64_t *pos, int64_t *endpos) {
    static const char *const names[] = {"self", "string", "pos", "endpos"};
    Value a[4];
    if (clinic_args(vm, fname, argc, argv, kw, 4, 2, names, 4, a) < 0) return -1;
    *string = a[1];
    *pos = 0;
    *endpos = INT64_MAX;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], pos) < 0) return -1;
    if (!val_is_null(a[3]) && vm_index(vm, a[3], endpos) < 0) return -1;
    return 0;
}

/* match (0), fullmatch (1), search (2) */
static Value p_match(ARGS) {
    static const char *const fnames[] = {"match", "fullmatch", "search"};
    int mode = (int)(intptr_t)fn->data;
    Value string;
    int64_t pos, endpos;
    if (parse_string_pos(vm, fnames[mode], argc, argv, kw, &string, &pos, &endpos) < 0) return val_null();
    PatternObj *p = self_pattern(argv[0]);
    SreState st;
    if (state_init(vm, &st, p, string, pos, endpos) < 0) return val_null();
    st.match_all = mode == 1;
    int64_t status = mode == 2 ? sre_search_run(&st, p) : sre_match_run(&st, p);
    Value r = match_new(vm, p, &st, status);
    state_fini(&st);
    return r;
}

static Value p_findall(ARGS) {
    Value string;
    int64_t pos, endpos;
    if (parse_string_pos(vm, "findall", argc, argv, kw, &string, &pos, &endpos) < 0) return val_null();
    PatternObj *p = self_pattern(argv[0]);
    SreState st;
    if (state_init(vm, &st, p, string, pos, endpos) < 0) return val_null();
    ListObj *list = list_new(vm, 0);
    if (!list) goto error;
    vm_push_root(vm, val_obj(list));
    while (st.start <= st.end) {
        state_reset(&st);
        int64_t status = sre_search_run(&st, p);
        if (status <= 0) {
            if (status == 0) break;
            sre_error(vm, status);
            goto error_rooted;
        }
        Value item;
        if (p->groups == 0) {
            item = state_slice(vm, &st, state_offset(&st, st.start), state_offset(&st, st.ptr));
        } else if (p->groups == 1) {
            item = state_getslice(vm, &st, 1, true);
        } else {
            TupleObj *t = tuple_new(vm, p->groups);
            if (!t) goto error_rooted;
            vm_push_root(vm, val_obj(t));
            for (int64_t i = 0; i < p->groups; i++) {
                Value v = state_getslice(vm, &st, i + 1, true);
                if (val_is_null(v)) {
                    vm_pop_root(vm);
                    goto error_rooted;
                }
                t->items[i] = v;
            }
            vm_pop_root(vm);
            item = val_obj(t);
        }
        if (val_is_null(item) || list_append(vm, list, item) < 0) goto error_rooted;
        st.must_advance = st.ptr == st.start;
        st.start = st.ptr;
    }
    vm_pop_root(vm);
    state_fini(&st);
    return val_obj(list);
error_rooted:
    vm_pop_root(vm);
error:
    state_fini(&st);
    return val_null();
}

static Value scanner_create(VM *vm, PatternObj *p, Value string, int64_t pos, int64_t endpos) {
    SreState *st = malloc(sizeof *st);
    if (!st) return vm_no_memory(vm);
    if (state_init(vm, st, p, string, pos, endpos) < 0) {
        free(st);
        return val_null();
    }
    ScannerObj *s = gc_alloc(vm, AS_TYPE(p->types->items[SRE_T_SCANNER]), sizeof(ScannerObj));
    if (!s) {
        state_fini(st);
        free(st);
        return val_null();
    }
    s->pattern = p;
    s->string = string;
    s->state = st;
    return val_obj(s);
}

static Value p_scanner(ARGS) {
    Value string;
    int64_t pos, endpos;
    if (parse_string_pos(vm, "scanner", argc, argv, kw, &string, &pos, &endpos) < 0) return val_null();
    return scanner_create(vm, self_pattern(argv[0]), string, pos, endpos);
}

/* scanner.match (0) / scanner.search (1): the next match, continuing where the last ended. */
static Value scanner_step(VM *vm, ScannerObj *s, bool search) {
    SreState *st = s->state;
    if (s->exhausted || !st) return val_none();
    if (s->executing) return vm_raise(vm, vm->e_ValueError, "regular expression scanner already executing");
    state_reset(st);
    s->executing = true;
    int64_t status = search ? sre_search_run(st, s->pattern) : sre_match_run(st, s->pattern);
    Value m = match_new(vm, s->pattern, st, status);
    s->executing = false;
    if (status == 0) {
        s->exhausted = true;
    } else {
        st->must_advance = st->ptr == st->start;
        st->start = st->ptr;
    }
    return m;
}

static Value sc_match(ARGS) {
    if (native_check_args(vm, "match", argc, kw, 1, 1) < 0) return val_null();
    return scanner_step(vm, (ScannerObj *)argv[0].as.o, false);
}

static Value sc_search(ARGS) {
    if (native_check_args(vm, "search", argc, kw, 1, 1) < 0) return val_null();
    return scanner_step(vm, (ScannerObj *)argv[0].as.o, true);
}

static Value sg_pattern(VM *vm, Value s, void *c) { return val_obj(((ScannerObj *)s.as.o)->pattern); }

static Value p_finditer(ARGS) {
    Value string;
    int64_t pos, endpos;
    if (parse_string_pos(vm, "finditer", argc, argv, kw, &string, &pos, &endpos) < 0) return val_null();
    Value sc = scanner_create(vm, self_pattern(argv[0]), string, pos, endpos);
    if (val_is_null(sc)) return sc;
    vm_push_root(vm, sc);
    Value search = vm_getattr_c(vm, sc, "search");
    vm_pop_root(vm);
    if (val_is_null(search)) return search;
    vm_push_root(vm, search);
    /* iter(scanner.search, None), as CPython builds it */
    Value builtin_iter = dict_get_c(vm, vm->builtins, "iter");
    Value r = val_is_null(builtin_iter) ? vm_raise(vm, vm->e_RuntimeError, "lost builtins.iter")
                                        : vm_call2(vm, builtin_iter, search, val_none());
    vm_pop_root(vm);
    return r;
}

static Value p_split(ARGS) {
    static const char *const names[] = {"self", "string", "maxsplit"};
    Value a[3];
    if (clinic_args(vm, "split", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    int64_t maxsplit = 0;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &maxsplit) < 0) return val_null();
    PatternObj *p = self_pattern(argv[0]);
    SreState st;
    if (state_init(vm, &st, p, a[1], 0, INT64_MAX) < 0) return val_null();
    ListObj *list = list_new(vm, 0);
    if (!list) goto error;
    vm_push_root(vm, val_obj(list));
    int64_t n = 0;
    const void *last = st.start;
    while (!maxsplit || n < maxsplit) {
        state_reset(&st);
        int64_t status = sre_search_run(&st, p);
        if (status <= 0) {
            if (status == 0) break;
            sre_error(vm, status);
            goto error_rooted;
        }
        Value item = state_slice(vm, &st, state_offset(&st, last), state_offset(&st, st.start));
        if (val_is_null(item) || list_append(vm, list, item) < 0) goto error_rooted;
        for (int64_t i = 0; i < p->groups; i++) {
            item = state_getslice(vm, &st, i + 1, false);
            if (val_is_null(item) || list_append(vm, list, item) < 0) goto error_rooted;
        }
        n++;
        st.must_advance = st.ptr == st.start;
        last = st.start = st.ptr;
    }
    Value item = state_slice(vm, &st, state_offset(&st, last), st.endpos);
    if (val_is_null(item) || list_append(vm, list, item) < 0) goto error_rooted;
    vm_pop_root(vm);
    state_fini(&st);
    return val_obj(list);
error_rooted:
    vm_pop_root(vm);
error:
    state_fini(&st);
    return val_null();
}

/* Join the pieces of sub() with an empty str/bytes, as CPython's join_list does. */
static Value join_pieces(VM *vm, ListObj *list, bool isbytes) {
    Value empty;
    if (isbytes) {
        BytesObj *b = bytes_new(vm, NULL, 0);
        if (!b) return val_null();
        empty = val_obj(b);
    } else {
        empty = val_obj(vm->empty_str);
    }
    vm_push_root(vm, empty);
    Value arg = val_obj(list);
    Value r = vm_call_method(vm, empty, "join", 1, &arg);
    vm_pop_root(vm);
    return r;
}

static bool template_is_literal(VM *vm, Value t) {
    if (t.tag != VAL_OBJ) return false;
    if (vm_isinstance_type(vm, t, vm->t_str)) return memchr(AS_STR(t)->data, '\\', (size_t)AS_STR(t)->len) == NULL;
    if (vm_isinstance_type(vm, t, vm->t_bytes)) {
        BytesObj *b = (BytesObj *)t.as.o;
        return memchr(b->data, '\\', (size_t)b->len) == NULL;
    }
    return false;
}

static Value pattern_subx(VM *vm, PatternObj *p, Value self, Value ptemplate, Value string, int64_t count,
                          bool subn) {
    Value filter;
    bool callable;
    if (vm_is_callable(vm, ptemplate)) {
        filter = ptemplate;
        callable = true;
    } else if (template_is_literal(vm, ptemplate)) {
        filter = ptemplate;
        callable = false;
    } else {
        Value a[2] = {self, ptemplate};
        filter = call_re_helper(vm, "_subx", 2, a);
        if (val_is_null(filter)) return filter;
        callable = vm_is_callable(vm, filter);
    }
    vm_push_root(vm, filter);
    SreState st;
    if (state_init(vm, &st, p, string, 0, INT64_MAX) < 0) {
        vm_pop_root(vm);
        return val_null();
    }
    ListObj *list = list_new(vm, 0);
    if (!list) goto error;
    vm_push_root(vm, val_obj(list));
    int64_t n = 0, i = 0;
    while (!count || n < count) {
        state_reset(&st);
        int64_t status = sre_search_run(&st, p);
        if (status <= 0) {
            if (status == 0) break;
            sre_error(vm, status);
            goto error_rooted;
        }
        int64_t b = state_offset(&st, st.start), e = state_offset(&st, st.ptr);
        if (i < b) {
            Value piece = state_slice(vm, &st, i, b);
            if (val_is_null(piece) || list_append(vm, list, piece) < 0) goto error_rooted;
        }
        Value item;
        if (callable) {
            Value m = match_new(vm, p, &st, 1);
            if (val_is_null(m)) goto error_rooted;
            vm_push_root(vm, m);
            item = vm_call1(vm, filter, m);
            vm_pop_root(vm);
            if (val_is_null(item)) goto error_rooted;
        } else {
            item = filter;
        }
        if (!val_is_none(item) && list_append(vm, list, item) < 0) goto error_rooted;
        i = e;
        n++;
        st.must_advance = st.ptr == st.start;
        st.start = st.ptr;
    }
    if (i < st.endpos) {
        Value piece = state_slice(vm, &st, i, st.endpos);
        if (val_is_null(piece) || list_append(vm, list, piece) < 0) goto error_rooted;
    }
    Value joined = join_pieces(vm, list, st.isbytes);
    vm_pop_roots(vm, 2);
    state_fini(&st);
    if (val_is_null(joined) || !subn) return joined;
    vm_push_root(vm, joined);
    TupleObj *t = tuple_pack(vm, 2, joined, val_int(n));
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
error_rooted:
    vm_pop_root(vm);
error:
    vm_pop_root(vm);
    state_fini(&st);
    return val_null();
}

static Value p_sub(ARGS) {
    bool subn = fn->data != NULL;
    static const char *const names[] = {"self", "repl", "string", "count"};
    Value a[4];
    if (clinic_args(vm, subn ? "subn" : "sub", argc, argv, kw, 4, 3, names, 4, a) < 0) return val_null();
    int64_t count = 0;
    if (!val_is_null(a[3]) && vm_index(vm, a[3], &count) < 0) return val_null();
    return pattern_subx(vm, self_pattern(argv[0]), argv[0], a[1], a[2], count, subn);
}

static Value p_repr(ARGS) {
    PatternObj *p = self_pattern(argv[0]);
    static const struct { const char *name; int64_t value; } flag_names[] = {
        {"re.TEMPLATE", SRE_FLAG_TEMPLATE}, {"re.IGNORECASE", SRE_FLAG_IGNORECASE},
        {"re.LOCALE", SRE_FLAG_LOCALE}, {"re.MULTILINE", SRE_FLAG_MULTILINE},
        {"re.DOTALL", SRE_FLAG_DOTALL}, {"re.UNICODE", SRE_FLAG_UNICODE},
        {"re.VERBOSE", SRE_FLAG_VERBOSE}, {"re.DEBUG", SRE_FLAG_DEBUG}, {"re.ASCII", SRE_FLAG_ASCII},
    };
    Value r = vm_repr(vm, p->pattern);
    if (val_is_null(r)) return r;
    StrObj *rs = AS_STR(r);
    int64_t cut = rs->ncp > 200 ? str_byte_offset(rs, 200) : rs->len;
    StrBuf b;
    sb_init(&b);
    sb_adds(&b, "re.compile(");
    sb_add(&b, rs->data, cut);
    int64_t flags = p->flags;
    /* re.UNICODE is implied for str patterns */
    if (!p->isbytes && (flags & (SRE_FLAG_LOCALE | SRE_FLAG_UNICODE | SRE_FLAG_ASCII)) == SRE_FLAG_UNICODE)
        flags &= ~SRE_FLAG_UNICODE;
    bool first = true;
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++) {
        if (flags & flag_names[i].value) {
            sb_adds(&b, first ? ", " : "|");
            sb_adds(&b, flag_names[i].name);
            flags &= ~flag_names[i].value;
            first = false;
        }
    }
    if (flags) sb_printf(&b, "%s0x%llx", first ? ", " : "|", (unsigned long long)flags);
    sb_addc(&b, ')');
    StrObj *s = sb_finish(vm, &b);
    return s ? val_obj(s) : val_null();
}

static Value p_eq(ARGS) {
    if (native_check_args(vm, "__eq__", argc, kw, 2, 2) < 0) return val_null();
    if (argv[1].tag != VAL_OBJ || argv[1].as.o->type != argv[0].as.o->type) return vm->not_implemented;
    PatternObj *a = self_pattern(argv[0]), *b = self_pattern(argv[1]);
    if (a == b) return val_bool(true);
    if (a->flags != b->flags || a->isbytes != b->isbytes || a->codesize != b->codesize ||
        memcmp(a->code, b->code, sizeof(SreCode) * (size_t)a->codesize) != 0)
        return val_bool(false);
    int eq = vm_eq(vm, a->pattern, b->pattern);
    return eq < 0 ? val_null() : val_bool(eq);
}

static Value p_ne(ARGS) {
    Value r = p_eq(vm, argc, argv, kw, fn);
    if (val_is_bool(r)) return val_bool(!r.as.b);
    return r;
}

static Value p_hash(ARGS) {
    PatternObj *p = self_pattern(argv[0]);
    int64_t h;
    if (vm_hash(vm, p->pattern, &h) < 0) return val_null();
    int64_t h2 = hash_bytes(p->code, (int64_t)sizeof(SreCode) * p->codesize);
    h ^= h2;
    h ^= p->flags ^ (p->isbytes ? 1 : 0);
    if (h == -1) h = -2;
    return val_int(h);
}

static Value p_class_getitem(ARGS) { return argv[0]; }

static Value pg_pattern(VM *vm, Value s, void *c) { return self_pattern(s)->pattern; }
static Value pg_flags(VM *vm, Value s, void *c) { return val_int(self_pattern(s)->flags); }
static Value pg_groups(VM *vm, Value s, void *c) { return val_int(self_pattern(s)->groups); }
static Value pg_groupindex(VM *vm, Value s, void *c) {
    /* CPython hands out a read-only proxy; a copy keeps the pattern's own map unchanged too */
    DictObj *d = dict_copy(vm, self_pattern(s)->groupindex);
    return d ? val_obj(d) : val_null();
}

/* ---- code validation ------------------------------------------------------------------ */

/* Checks that every offset in the code stays inside it and every operand is in range, so a
 * hand-made code list cannot make the engine read outside it (CPython's _validate). */
static bool valid_charset(const SreCode *code, const SreCode *end) {
    while (code < end) {
        SreCode op = *code++;
        switch (op) {
        case SRE_OP_NEGATE: break;
        case SRE_OP_LITERAL:
        case SRE_OP_CATEGORY:
            if (code >= end) return false;
            code++;
            break;
        case SRE_OP_RANGE:
        case SRE_OP_RANGE_UNI_IGNORE:
            if (end - code < 2) return false;
            code += 2;
            break;
        case SRE_OP_CHARSET:
            if (end - code < 8) return false;
            code += 8;
            break;
        case SRE_OP_BIGCHARSET: {
            if (code >= end) return false;
            SreCode count = *code++;
            if (end - code < 64) return false;
            const unsigned char *idx = (const unsigned char *)code;
            for (int i = 0; i < 256; i++)
                if (idx[i] >= count) return false;
            code += 64;
            if ((uint64_t)(end - code) < (uint64_t)count * 8) return false;
            code += count * 8;
            break;
        }
        case SRE_OP_FAILURE: return code == end;
        default: return false;
        }
    }
    return false;
}

static bool valid_code(const SreCode *code, const SreCode *end, int64_t groups);

/* A sub-sequence [code, end) that the engine runs as a unit. */
static bool valid_block(const SreCode *code, const SreCode *end, int64_t groups) {
    return valid_code(code, end, groups);
}

static bool valid_code(const SreCode *code, const SreCode *end, int64_t groups) {
#define NEED(n) do { if (end - code < (n)) return false; } while (0)
    while (code < end) {
        SreCode op = *code++;
        SreCode skip, arg;
        switch (op) {
        case SRE_OP_MARK:
            NEED(1);
            if (*code++ >= 2 * (uint64_t)groups) return false;
            break;
        case SRE_OP_AT:
            NEED(1);
            if (*code++ > SRE_AT_UNI_NON_BOUNDARY) return false;
            break;
        case SRE_OP_ANY: case SRE_OP_ANY_ALL: case SRE_OP_SUCCESS: case SRE_OP_FAILURE:
            break;
        case SRE_OP_CATEGORY:
            NEED(1);
            if (*code++ > SRE_CATEGORY_UNI_NOT_LINEBREAK) return false;
            break;
        case SRE_OP_LITERAL: case SRE_OP_NOT_LITERAL: case SRE_OP_LITERAL_IGNORE:
        case SRE_OP_NOT_LITERAL_IGNORE: case SRE_OP_LITERAL_UNI_IGNORE: case SRE_OP_NOT_LITERAL_UNI_IGNORE:
        case SRE_OP_LITERAL_LOC_IGNORE: case SRE_OP_NOT_LITERAL_LOC_IGNORE:
            NEED(1);
            code++;
            break;
        case SRE_OP_IN: case SRE_OP_IN_IGNORE: case SRE_OP_IN_UNI_IGNORE: case SRE_OP_IN_LOC_IGNORE:
            NEED(1);
            skip = *code;
            if (skip < 1 || skip > (SreCode)(end - code)) return false;
            if (!valid_charset(code + 1, code + skip)) return false;
            code += skip;
            break;
        case SRE_OP_INFO: {
            /* <INFO> <skip> <flags> <min> <max> [prefix | charset] */
            NEED(1);
            skip = *code;
            if (skip < 4 || skip > (SreCode)(end - code)) return false;
            const SreCode *newcode = code + skip;
            SreCode flags = code[1];
            if (flags & ~(SreCode)(SRE_INFO_PREFIX | SRE_INFO_LITERAL | SRE_INFO_CHARSET)) return false;
            if ((flags & SRE_INFO_PREFIX) && (flags & SRE_INFO_CHARSET)) return false;
            if ((flags & SRE_INFO_LITERAL) && !(flags & SRE_INFO_PREFIX)) return false;
            const SreCode *q = code + 4;
            if (flags & SRE_INFO_PREFIX) {
                if (newcode - q < 2) return false;
                SreCode plen = q[0], pskip = q[1];
                q += 2;
                if (plen == 0 || pskip > plen || (uint64_t)(newcode - q) < 2 * (uint64_t)plen) return false;
                for (SreCode i = 0; i < plen; i++)
                    if (q[plen + i] >= plen) return false;   /* overlap table entries */
                if (q[plen] != 0) return false;
            } else if (flags & SRE_INFO_CHARSET) {
                if (!valid_charset(q, newcode)) return false;
            }
            code = newcode;
            break;
        }
        case SRE_OP_BRANCH: {
            /* <BRANCH> <skip> code <JUMP> <skip2> ... <0> */
            const SreCode *target = NULL;
            for (;;) {
                NEED(1);
                skip = *code;
                if (skip == 0) break;
                if (skip < 3 || skip > (SreCode)(end - code)) return false;
                if (code[skip - 2] != SRE_OP_JUMP) return false;
                if (!valid_block(code + 1, code + skip - 2, groups)) return false;
                const SreCode *after = code + skip - 1 + code[skip - 1];
                if (code[skip - 1] == 0 || after > end) return false;
                if (target && after != target) return false;
                target = after;
                code += skip;
            }
            code++;
            if (target && target != code) return false;
            break;
        }
        case SRE_OP_REPEAT_ONE: case SRE_OP_MIN_REPEAT_ONE: case SRE_OP_POSSESSIVE_REPEAT_ONE: {
            /* <op> <skip> <min> <max> item <SUCCESS> tail */
            NEED(3);
            skip = code[0];
            if (skip < 4 || skip > (SreCode)(end - code)) return false;
            if (code[1] > code[2] && code[2] != (SreCode)SRE_MAXREPEAT) return false;
            if (code[skip - 1] != SRE_OP_SUCCESS) return false;
            if (!valid_block(code + 3, code + skip - 1, groups)) return false;
            code += skip;
            break;
        }
        case SRE_OP_REPEAT: case SRE_OP_POSSESSIVE_REPEAT: {
            /* <REPEAT> <skip> <min> <max> item <MAX_UNTIL|MIN_UNTIL>, or
             * <POSSESSIVE_REPEAT> <skip> <min> <max> item <SUCCESS> */
            NEED(3);
            skip = code[0];
            if (skip < 3 || skip >= (SreCode)(end - code)) return false;
            if (code[1] > code[2] && code[2] != (SreCode)SRE_MAXREPEAT) return false;
            if (!valid_block(code + 3, code + skip, groups)) return false;
            SreCode until = code[skip];
            if (op == SRE_OP_POSSESSIVE_REPEAT ? until != SRE_OP_SUCCESS
                                              : (until != SRE_OP_MAX_UNTIL && until != SRE_OP_MIN_UNTIL))
                return false;
            code += skip + 1;
            break;
        }
        case SRE_OP_ATOMIC_GROUP:
            NEED(1);
            skip = code[0];
            if (skip < 2 || skip > (SreCode)(end - code)) return false;
            if (code[skip - 1] != SRE_OP_SUCCESS) return false;
            if (!valid_block(code + 1, code + skip - 1, groups)) return false;
            code += skip;
            break;
        case SRE_OP_GROUPREF: case SRE_OP_GROUPREF_IGNORE: case SRE_OP_GROUPREF_UNI_IGNORE:
        case SRE_OP_GROUPREF_LOC_IGNORE:
            NEED(1);
            if (*code++ >= (uint64_t)groups) return false;
            break;
        case SRE_OP_GROUPREF_EXISTS: {
            /* <GROUPREF_EXISTS> <group> <skip> codeyes [<JUMP> <skip2> codeno] */
            NEED(2);
            arg = code[0];
            if (arg >= (uint64_t)groups) return false;
            skip = code[1];
            if (skip < 2 || skip > (SreCode)(end - code)) return false;
            const SreCode *yes_end = code + skip;
            code += 2;
            if (skip >= 4 && yes_end[-2] == SRE_OP_JUMP) {
                if (!valid_block(code, yes_end - 2, groups)) return false;
                SreCode skip2 = yes_end[-1];
                if (skip2 < 1 || skip2 - 1 > (SreCode)(end - yes_end)) return false;
                if (!valid_block(yes_end, yes_end + skip2 - 1, groups)) return false;
                code = yes_end + skip2 - 1;
            } else {
                if (!valid_block(code, yes_end, groups)) return false;
                code = yes_end;
            }
            break;
        }
        case SRE_OP_ASSERT: case SRE_OP_ASSERT_NOT:
            /* <ASSERT> <skip> <back> pattern <SUCCESS> */
            NEED(2);
            skip = code[0];
            if (skip < 3 || skip > (SreCode)(end - code)) return false;
            if (code[1] & 0x80000000u) return false;
            if (code[skip - 1] != SRE_OP_SUCCESS) return false;
            if (!valid_block(code + 2, code + skip - 1, groups)) return false;
            code += skip;
            break;
        case SRE_OP_JUMP:
            /* only inside BRANCH / GROUPREF_EXISTS, checked there */
            return false;
        case SRE_OP_MAX_UNTIL: case SRE_OP_MIN_UNTIL:
            /* only after a REPEAT's body, checked there */
            return false;
        default:
            return false;
        }
    }
    return code == end;
#undef NEED
}

/* ---- module functions ----------------------------------------------------------------- */

/* An int argument, int subclasses (re.RegexFlag members) included. */
static bool sre_int(Value v, int64_t *out) {
    if (val_is_intlike(v)) {
        *out = val_as_intlike(v);
        return true;
    }
    if (val_is_intobj(v) && mpz_fits_slong_p(AS_INTOBJ(v)->z)) {
        *out = mpz_get_si(AS_INTOBJ(v)->z);
        return true;
    }
    return false;
}

static Value sre_compile(ARGS) {
    static const char *const names[] = {"pattern", "flags", "code", "groups", "groupindex", "indexgroup"};
    Value a[6];
    if (clinic_args(vm, "compile", argc, argv, kw, 6, 6, names, 6, a) < 0) return val_null();
    TupleObj *types = (TupleObj *)fn->payload.as.o;
    int64_t flags, groups;
    if (!sre_int(a[1], &flags)) return vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, a[1]));
    if (!val_is_type(vm, a[2], vm->t_list))
        return vm_raise(vm, vm->e_TypeError, "compile() argument 'code' must be list, not %s", vm_type_name(vm, a[2]));
    if (vm_index(vm, a[3], &groups) < 0) return val_null();
    if (!val_is_obj(a[4]) || !vm_isinstance_type(vm, a[4], vm->t_dict))
        return vm_raise(vm, vm->e_TypeError, "compile() argument 'groupindex' must be dict, not %s", vm_type_name(vm, a[4]));
    if (!val_is_type(vm, a[5], vm->t_tuple))
        return vm_raise(vm, vm->e_TypeError, "compile() argument 'indexgroup' must be tuple, not %s", vm_type_name(vm, a[5]));
    ListObj *code = AS_LIST(a[2]);
    int64_t n = code->len;
    if (groups < 0 || groups > SRE_MAXGROUPS) return vm_raise(vm, vm->e_RuntimeError, "invalid SRE code");
    PatternObj *p = gc_alloc(vm, AS_TYPE(types->items[SRE_T_PATTERN]), sizeof(PatternObj) + sizeof(SreCode) * (size_t)n);
    if (!p) return val_null();
    p->pattern = a[0];
    p->flags = flags;
    p->groups = groups;
    p->types = types;
    p->codesize = n;
    p->pattern = a[0];
    p->groupindex = AS_DICT(a[4]);
    p->indexgroup = AS_TUPLE(a[5]);
    for (int64_t i = 0; i < n; i++) {
        int64_t cv;
        if (!sre_int(code->items[i], &cv) || cv < 0 || cv > (int64_t)UINT32_MAX)
            return vm_raise(vm, vm->e_OverflowError, "regular expression code size limit exceeded");
        p->code[i] = (SreCode)cv;
    }
    if (val_is_none(a[0])) {
        p->isbytes = false;
    } else if (vm_isinstance_type(vm, a[0], vm->t_str)) {
        p->isbytes = false;
    } else if (vm_isinstance_type(vm, a[0], vm->t_bytes)) {
        p->isbytes = true;
    } else {
        return vm_raise(vm, vm->e_TypeError, "expected string or bytes-like object, got '%s'", vm_type_name(vm, a[0]));
    }
    /* the compiler's groupindex dict is shared with the caller: keep our own copy */
    vm_push_root(vm, val_obj(p));
    DictObj *gi = dict_copy(vm, AS_DICT(a[4]));
    vm_pop_root(vm);
    if (!gi) return val_null();
    p->groupindex = gi;
    if (n == 0 || !valid_code(p->code, p->code + n, groups)) return vm_raise(vm, vm->e_RuntimeError, "invalid SRE code");
    return val_obj(p);
}

static Value sre_getcodesize(ARGS) { return val_int(4); }


static int arg_char(VM *vm, const char *fname, int argc, Value *argv, TupleObj *kw, uint32_t *out) {
    if (native_check_args(vm, fname, argc, kw, 1, 1) < 0) return -1;
    int64_t c;
    if (!val_is_intlike(argv[0])) {
        vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, argv[0]));
        return -1;
    }
    c = val_as_intlike(argv[0]);
    *out = (uint32_t)c;
    return 0;
}

static Value sre_ascii_iscased(ARGS) {
    uint32_t c;
    if (arg_char(vm, "ascii_iscased", argc, argv, kw, &c) < 0) return val_null();
    return val_bool(c < 128 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')));
}

static Value sre_unicode_iscased(ARGS) {
    uint32_t c;
    if (arg_char(vm, "unicode_iscased", argc, argv, kw, &c) < 0) return val_null();
    return val_bool(c != sre_lower_unicode(c) || c != sre_upper_unicode(c));
}

static Value sre_ascii_tolower(ARGS) {
    uint32_t c;
    if (arg_char(vm, "ascii_tolower", argc, argv, kw, &c) < 0) return val_null();
    return val_int(sre_lower_ascii(c));
}

static Value sre_unicode_tolower(ARGS) {
    uint32_t c;
    if (arg_char(vm, "unicode_tolower", argc, argv, kw, &c) < 0) return val_null();
    return val_int(sre_lower_unicode(c));
}

/* Give every native method of t the shared types tuple as its payload. */
static void set_payloads(TypeObj *t, TupleObj *types) {
    int64_t pos = 0;
    Value k, v;
    while (dict_next(t->dict, &pos, &k, &v))
        if (v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_NATIVE) ((NativeObj *)v.as.o)->payload = val_obj(types);
}

int sre_module_init(VM *vm, Value mod) {
    TypeObj *tp = type_new_builtin(vm, "Pattern", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(PatternObj), 0,
                                   pattern_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!tp) return -1;
    vm_push_root(vm, val_obj(tp));
    TypeObj *tm = type_new_builtin(vm, "Match", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(MatchObj), 0,
                                   match_trace, NULL, TYPEF_ABSTRACT_NEW);
    if (!tm) return -1;
    vm_push_root(vm, val_obj(tm));
    TypeObj *ts = type_new_builtin(vm, "SRE_Scanner", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(ScannerObj), 0,
                                   scanner_trace, scanner_finalize, TYPEF_ABSTRACT_NEW);
    if (!ts) return -1;
    vm_push_root(vm, val_obj(ts));
    TupleObj *types = tuple_pack(vm, 3, val_obj(tp), val_obj(tm), val_obj(ts));
    vm_pop_roots(vm, 3);
    if (!types) return -1;
    vm_push_root(vm, val_obj(types));
    tp->module = tm->module = vm_intern(vm, "re");
    ts->module = vm_intern(vm, "_sre");

    static const MethodDef pm[] = {
        {"match", p_match, NATIVEF_METHOD, (void *)0}, {"fullmatch", p_match, NATIVEF_METHOD, (void *)1},
        {"search", p_match, NATIVEF_METHOD, (void *)2}, {"findall", p_findall, NATIVEF_METHOD},
        {"finditer", p_finditer, NATIVEF_METHOD}, {"scanner", p_scanner, NATIVEF_METHOD},
        {"split", p_split, NATIVEF_METHOD}, {"sub", p_sub, NATIVEF_METHOD, NULL},
        {"subn", p_sub, NATIVEF_METHOD, (void *)1}, {"__repr__", p_repr, NATIVEF_METHOD | ARITY_NOARGS},
        {"__eq__", p_eq, NATIVEF_METHOD}, {"__ne__", p_ne, NATIVEF_METHOD},
        {"__hash__", p_hash, NATIVEF_METHOD | ARITY_NOARGS}, {"__copy__", m_copy, NATIVEF_METHOD | ARITY_NOARGS},
        {"__deepcopy__", m_copy, NATIVEF_METHOD | ARITY_O},
        {"__class_getitem__", p_class_getitem, NATIVEF_CLASSMETHOD | ARITY_O}, {NULL}};
    static const GetSetDef pg[] = {
        {"pattern", pg_pattern}, {"flags", pg_flags}, {"groups", pg_groups}, {"groupindex", pg_groupindex}, {NULL}};
    static const MethodDef mm[] = {
        {"group", m_group, NATIVEF_METHOD}, {"__getitem__", m_getitem, NATIVEF_METHOD | ARITY_O},
        {"groups", m_groups, NATIVEF_METHOD}, {"groupdict", m_groupdict, NATIVEF_METHOD},
        {"start", m_span, NATIVEF_METHOD, (void *)0}, {"end", m_span, NATIVEF_METHOD, (void *)1},
        {"span", m_span, NATIVEF_METHOD, (void *)2}, {"expand", m_expand, NATIVEF_METHOD},
        {"__repr__", m_repr, NATIVEF_METHOD | ARITY_NOARGS}, {"__copy__", m_copy, NATIVEF_METHOD | ARITY_NOARGS},
        {"__deepcopy__", m_copy, NATIVEF_METHOD | ARITY_O},
        {"__class_getitem__", p_class_getitem, NATIVEF_CLASSMETHOD | ARITY_O}, {NULL}};
    static const GetSetDef mg[] = {
        {"string", mg_string}, {"re", mg_re}, {"pos", mg_pos}, {"endpos", mg_endpos},
        {"lastindex", mg_lastindex}, {"lastgroup", mg_lastgroup}, {"regs", mg_regs}, {NULL}};
    static const MethodDef sm[] = {
        {"match", sc_match, NATIVEF_METHOD}, {"search", sc_search, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef sg[] = {{"pattern", sg_pattern}, {NULL}};
    if (type_add_methods(vm, tp, pm) < 0 || type_add_getsets(vm, tp, pg) < 0 ||
        type_add_methods(vm, tm, mm) < 0 || type_add_getsets(vm, tm, mg) < 0 ||
        type_add_methods(vm, ts, sm) < 0 || type_add_getsets(vm, ts, sg) < 0)
        goto fail;
    if (dict_set_c(vm, tm->dict, "__hash__", val_none()) < 0) goto fail;
    type_modified(vm, tm);
    set_payloads(tp, types);

    NativeObj *compile = native_new_closure(vm, "compile", sre_compile, val_obj(types));
    if (!compile || module_set(vm, mod, "compile", val_obj(compile)) < 0) goto fail;
    static const MethodDef fns[] = {
        {"getcodesize", sre_getcodesize, ARITY_NOARGS}, {"ascii_iscased", sre_ascii_iscased},
        {"unicode_iscased", sre_unicode_iscased}, {"ascii_tolower", sre_ascii_tolower},
        {"unicode_tolower", sre_unicode_tolower}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0 || module_set(vm, mod, "MAGIC", val_int(SRE_MAGIC)) < 0 ||
        module_set(vm, mod, "CODESIZE", val_int(4)) < 0 ||
        module_set(vm, mod, "MAXREPEAT", val_int(SRE_MAXREPEAT)) < 0 ||
        module_set(vm, mod, "MAXGROUPS", val_int(SRE_MAXGROUPS)) < 0 ||
        module_set(vm, mod, "copyright", val_obj(str_from_c(vm, " SRE 2.2.2 Copyright (c) 1997-2002 by Secret Labs AB "))) < 0)
        goto fail;
    vm_pop_root(vm);
    return 0;
fail:
    vm_pop_root(vm);
    return -1;
}
