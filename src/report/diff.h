/* src/report/diff.h — line diffs for the report's recompile view. */
#ifndef EMBER_REPORT_DIFF_H
#define EMBER_REPORT_DIFF_H

#include <stdint.h>

typedef struct RpDiffLine {
    char op;              /* ' ' kept, '-' only in the old text, '+' only in the new */
    char *text;
} RpDiffLine;

typedef struct RpDiff {
    RpDiffLine *lines;
    int32_t n;
    int32_t changed;      /* lines added or removed */
} RpDiff;

RpDiff rp_diff_lines(const char *old_text, const char *new_text);
void rp_diff_free(RpDiff *d);

#endif
