/* vm/unicode.c — lookups in the generated Unicode range tables (vm/unicode_tables.inc). */
#include "vm/unicode.h"

#include <stddef.h>

typedef struct UnicodeRange {
    unsigned lo, hi;
} UnicodeRange;
typedef struct CombiningRange {
    unsigned lo, hi, ccc;
} CombiningRange;
typedef struct CaseMapping {
    unsigned cp;
    unsigned n;
    unsigned out[3];
} CaseMapping;
#include "vm/unicode_tables.inc"

static bool in_ranges(const UnicodeRange *r, size_t n, unsigned cp) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < r[mid].lo) hi = mid;
        else if (cp > r[mid].hi) lo = mid + 1;
        else return true;
    }
    return false;
}

#define NRANGES(a) (sizeof(a) / sizeof((a)[0]))

bool uni_is_xid_start(unsigned cp) {
    if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_';
    return in_ranges(xid_start_ranges, NRANGES(xid_start_ranges), cp);
}

bool uni_is_xid_continue(unsigned cp) {
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_' || (cp >= '0' && cp <= '9');
    return in_ranges(xid_continue_ranges, NRANGES(xid_continue_ranges), cp);
}

bool uni_is_printable(unsigned cp) {
    if (cp < 0x80) return cp >= 0x20 && cp < 0x7F;
    return in_ranges(printable_ranges, NRANGES(printable_ranges), cp);
}

#define RANGE_PRED(fn, table, ascii)                                  \
    bool fn(unsigned cp) {                                            \
        if (cp < 0x80) return (ascii);                                \
        return in_ranges(table, NRANGES(table), cp);                  \
    }
RANGE_PRED(uni_is_alpha, alpha_ranges, (cp | 32) >= 'a' && (cp | 32) <= 'z')
RANGE_PRED(uni_is_decimal, decimal_ranges, cp >= '0' && cp <= '9')
RANGE_PRED(uni_is_digit, digit_ranges, cp >= '0' && cp <= '9')
RANGE_PRED(uni_is_numeric, numeric_ranges, cp >= '0' && cp <= '9')
RANGE_PRED(uni_is_space, space_ranges, cp == ' ' || (cp >= 9 && cp <= 13) || (cp >= 0x1c && cp <= 0x1f))
RANGE_PRED(uni_is_lower, lower_ranges, cp >= 'a' && cp <= 'z')
RANGE_PRED(uni_is_upper, upper_ranges, cp >= 'A' && cp <= 'Z')
RANGE_PRED(uni_is_cased, cased_ranges, (cp | 32) >= 'a' && (cp | 32) <= 'z')

static int case_map(const CaseMapping *m, size_t n, unsigned cp, unsigned out[3]) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < m[mid].cp) hi = mid;
        else if (cp > m[mid].cp) lo = mid + 1;
        else {
            for (unsigned i = 0; i < m[mid].n; i++) out[i] = m[mid].out[i];
            return (int)m[mid].n;
        }
    }
    out[0] = cp;
    return 1;
}

int uni_to_upper(unsigned cp, unsigned out[3]) {
    if (cp < 0x80) {
        out[0] = cp >= 'a' && cp <= 'z' ? cp - 32 : cp;
        return 1;
    }
    return case_map(upper_map, NRANGES(upper_map), cp, out);
}

int uni_to_lower(unsigned cp, unsigned out[3]) {
    if (cp < 0x80) {
        out[0] = cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
        return 1;
    }
    return case_map(lower_map, NRANGES(lower_map), cp, out);
}

int uni_to_title(unsigned cp, unsigned out[3]) {
    if (cp < 0x80) return uni_to_upper(cp, out);
    return case_map(title_map, NRANGES(title_map), cp, out);
}

bool uni_nfkc_changes(unsigned cp) {
    return cp >= 0x80 && in_ranges(nfkc_changes_ranges, NRANGES(nfkc_changes_ranges), cp);
}

bool uni_nfc_composing(unsigned cp) {
    return cp >= 0x80 && in_ranges(nfc_composing_ranges, NRANGES(nfc_composing_ranges), cp);
}

unsigned uni_combining_class(unsigned cp) {
    size_t lo = 0, hi = NRANGES(ccc_ranges);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < ccc_ranges[mid].lo) hi = mid;
        else if (cp > ccc_ranges[mid].hi) lo = mid + 1;
        else return ccc_ranges[mid].ccc;
    }
    return 0;
}

int uni_casefold(unsigned cp, unsigned out[3]) {
    if (cp < 0x80) return uni_to_lower(cp, out);
    return case_map(casefold_map, NRANGES(casefold_map), cp, out);
}

/* Every run of decimal digits in Unicode starts at a zero, so a digit's value is its offset
 * in its range modulo 10 (checked against unicodedata.decimal when the table was made). */
int uni_decimal_value(unsigned cp) {
    if (cp >= '0' && cp <= '9') return (int)(cp - '0');
    if (cp < 0x80) return -1;
    size_t lo = 0, hi = NRANGES(decimal_ranges);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < decimal_ranges[mid].lo) hi = mid;
        else if (cp > decimal_ranges[mid].hi) lo = mid + 1;
        else return (int)((cp - decimal_ranges[mid].lo) % 10);
    }
    return -1;
}
