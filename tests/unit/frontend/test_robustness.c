/* test_robustness.c — bad input never crashes the front end.
 *
 * Every program of the corpora is mutated many times (deterministically: inserted, deleted,
 * duplicated and replaced bytes, including NUL, invalid UTF-8, tabs, brackets and quotes)
 * and run through the lexer, parser, symbol tables, dump and error rendering.  Under
 * -Db_sanitize=address,undefined this is the suite's memory-safety check.  The invariants
 * asserted are the API's: every failure yields an error with a message and a line. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/lexer.h"
#include "src/frontend/parser.h"
#include "src/frontend/symtable.h"
#include "tests/unit/frontend/frontend_dump.h"
#include "tests/unit/frontend/test_util.h"

static uint64_t rng_state;

static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const char *const fragments[] = {
    "(", ")", "[", "]", "{", "}", ":", ",", "=", "\n", "    ", "\t", "\\", "#", "'", "\"", "\"\"\"",
    "f\"{", "}", "!r", "lambda", "yield", "def ", "class ", "if ", "else", "for ", " in ", "*", "**",
    "@", "->", ":=", "1e", "0x", "j", ".", "...", "\0", "\xff", "\xc3", "\xe2\x82\xac", "\xef\xbd\x97",
    "\r", "\f", "async ", "await ", "global ", "nonlocal ", "return", "del ", "import ", "from ",
};

static char *mutate(const char *src, size_t len, size_t *out_len) {
    size_t cap = len + 256;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    memcpy(buf, src, len);
    size_t n = len;
    int edits = 1 + (int)(rng() % 6);
    for (int e = 0; e < edits; e++) {
        size_t pos = n ? rng() % (n + 1) : 0;
        switch (rng() % 4) {
        case 0: { /* insert a fragment */
            const char *f = fragments[rng() % (sizeof fragments / sizeof *fragments)];
            size_t fl = f[0] ? strlen(f) : 1;
            if (n + fl >= cap) break;
            memmove(buf + pos + fl, buf + pos, n - pos);
            memcpy(buf + pos, f, fl);
            n += fl;
            break;
        }
        case 1: { /* delete a few bytes */
            size_t k = 1 + rng() % 8;
            if (pos + k > n) k = n - pos;
            memmove(buf + pos, buf + pos + k, n - pos - k);
            n -= k;
            break;
        }
        case 2: { /* duplicate a slice */
            if (!n) break;
            size_t from = rng() % n, k = 1 + rng() % 16;
            if (from + k > n) k = n - from;
            if (n + k >= cap) break;
            char tmp[16];
            memcpy(tmp, buf + from, k);
            memmove(buf + pos + k, buf + pos, n - pos);
            memcpy(buf + pos, tmp, k);
            n += k;
            break;
        }
        default: /* replace a byte */
            if (pos < n) buf[pos] = (char)(rng() & 0xFF);
        }
    }
    *out_len = n;
    return buf;
}

static void run_all(const char *src, size_t len) {
    Lexer lx;
    lex_tokenize(&lx, src, len, NULL);
    lex_free(&lx);
    AstArena *arena = ast_arena_new();
    ParseErrorList errs;
    parse_errors_init(&errs);
    AstModule *mod = NULL;
    int r = parse_source(src, len, NULL, arena, &mod, &errs);
    SymTable *st = mod ? sym_build(mod, &errs) : NULL;
    parse_errors_fill_text(&errs, src, len);
    if (r < 0 || !st) cr_assert_gt(errs.count, 0, "failure without an error");
    for (size_t i = 0; i < errs.count; i++) {
        cr_assert(errs.items[i].message && errs.items[i].message[0], "error without a message");
        cr_assert_geq(errs.items[i].lineno, 0);
        char *f = parse_format_error(&errs.items[i], "fuzz.py");
        cr_assert_not_null(f);
        free(f);
    }
    if (mod) {
        char *d = ast_dump(mod, true);
        cr_assert_not_null(d);
        free(d);
    }
    if (st) {
        char *d = dump_symtable(st);
        free(d);
    }
    sym_free(st);
    parse_errors_fini(&errs);
    ast_arena_free(arena);
}

static void fuzz_corpus(const char *subdir, int rounds) {
    FileList files = test_list_files(subdir, ".py");
    for (size_t i = 0; i < files.count; i++) {
        size_t len;
        char *src = test_read(files.paths[i], &len);
        cr_assert_not_null(src);
        rng_state = 0x9E3779B97F4A7C15ull ^ (i * 0x100000001B3ull) ^ (uint64_t)len;
        for (int k = 0; k < rounds; k++) {
            size_t n;
            char *m = mutate(src, len, &n);
            run_all(m, n);
            free(m);
        }
        free(src);
    }
    test_free_files(&files);
}

Test(robustness, mutated_ast_corpus, .timeout = 600) { fuzz_corpus("ast", 200); }
Test(robustness, mutated_error_corpus, .timeout = 600) { fuzz_corpus("errors", 30); }
Test(robustness, mutated_symtable_corpus, .timeout = 600) { fuzz_corpus("symtable", 200); }

static char *repeat(const char *prefix, const char *unit, size_t times, const char *suffix, size_t *len) {
    size_t pl = strlen(prefix), ul = strlen(unit), sl = strlen(suffix);
    char *s = malloc(pl + ul * times + sl + 1);
    cr_assert_not_null(s);
    memcpy(s, prefix, pl);
    for (size_t i = 0; i < times; i++) memcpy(s + pl + i * ul, unit, ul);
    memcpy(s + pl + ul * times, suffix, sl + 1);
    *len = pl + ul * times + sl;
    return s;
}

/* Deep nesting is bounded: an error, never a C stack overflow. */
Test(robustness, deep_nesting_is_an_error, .timeout = 300) {
    struct { const char *prefix, *unit, *suffix; size_t times; } cases[] = {
        {"x = ", "-", "1\n", 100000},
        {"x = ", "not ", "1\n", 100000},
        {"x = ", "a if b else ", "c\n", 100000},
        {"x = ", "lambda: ", "0\n", 100000},
        {"x = 2", " ** 2", "\n", 100000},
        {"x = ", "(", "1\n", 100000},
        {"x = ", "[", "\n", 100000},
        {"x = ", "f(", "\n", 100000},
        {"", "if x:\n", "  pass\n", 2000},
        {"x = f'{", "f\"{", "\n", 1000},
        {"x = ", "a.", "b\n", 100000},
        {"x = ", "~+", "y\n", 100000},
        {"x = ", "{1: ", "\n", 100000},
        {"x = ", "yield ", "1\n", 100000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *s = repeat(cases[i].prefix, cases[i].unit, cases[i].times, cases[i].suffix, &len);
        run_all(s, len);
        free(s);
    }
}

/* Long but flat input is fine (no recursion per element). */
Test(robustness, long_flat_input_parses, .timeout = 300) {
    size_t len;
    char *s = repeat("x = [", "1, ", 200000, "2]\ny = 1", &len);
    AstArena *arena = ast_arena_new();
    ParseErrorList errs;
    parse_errors_init(&errs);
    AstModule *mod = NULL;
    cr_expect_eq(parse_source(s, len, NULL, arena, &mod, &errs), 0);
    cr_expect_not_null(mod);
    parse_errors_fini(&errs);
    ast_arena_free(arena);
    free(s);
}
