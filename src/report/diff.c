/* src/report/diff.c — a line diff (longest common subsequence) for showing a recompile against
 * the compile it replaces.  Texts are a few hundred lines: the quadratic table is fine. */
#include "src/report/diff.h"

#include <stdlib.h>
#include <string.h>

static char **split_lines(const char *text, int32_t *n) {
    int32_t cap = 16, k = 0;
    char **lines = malloc(sizeof(char *) * (size_t)cap);
    for (const char *p = text ? text : ""; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (k == cap) lines = realloc(lines, sizeof(char *) * (size_t)(cap *= 2));
        lines[k++] = strndup(p, len);
        p += len + (nl ? 1 : 0);
    }
    *n = k;
    return lines;
}

RpDiff rp_diff_lines(const char *old_text, const char *new_text) {
    RpDiff d = {0};
    int32_t na, nb;
    char **a = split_lines(old_text, &na), **b = split_lines(new_text, &nb);
    /* lcs[i][j]: common length of a[i..] and b[j..] */
    int32_t *lcs = calloc((size_t)(na + 1) * (size_t)(nb + 1), sizeof(int32_t));
#define L(i, j) lcs[(size_t)(i) * (size_t)(nb + 1) + (size_t)(j)]
    for (int32_t i = na - 1; i >= 0; i--)
        for (int32_t j = nb - 1; j >= 0; j--)
            L(i, j) = strcmp(a[i], b[j]) == 0 ? L(i + 1, j + 1) + 1 : (L(i + 1, j) > L(i, j + 1) ? L(i + 1, j) : L(i, j + 1));
    d.lines = malloc(sizeof(RpDiffLine) * (size_t)(na + nb + 1));
    int32_t i = 0, j = 0;
    while (i < na || j < nb) {
        RpDiffLine *l = &d.lines[d.n++];
        if (i < na && j < nb && strcmp(a[i], b[j]) == 0) {
            *l = (RpDiffLine){' ', a[i]};
            free(b[j]);
            i++, j++;
        } else if (i < na && (j == nb || L(i + 1, j) >= L(i, j + 1))) {
            *l = (RpDiffLine){'-', a[i++]};   /* removals first, as unified diffs show them */
            d.changed++;
        } else {
            *l = (RpDiffLine){'+', b[j++]};
            d.changed++;
        }
    }
#undef L
    free(lcs);
    free(a);
    free(b);
    return d;
}

void rp_diff_free(RpDiff *d) {
    for (int32_t i = 0; i < d->n; i++) free(d->lines[i].text);
    free(d->lines);
    d->lines = NULL;
    d->n = 0;
}
