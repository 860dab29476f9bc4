/* vm/unicode.c — lookups in the generated Unicode range tables (vm/unicode_tables.inc). */
#include "vm/unicode.h"

#include <stddef.h>

typedef struct UnicodeRange {
    unsigned lo, hi;
} UnicodeRange;
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
