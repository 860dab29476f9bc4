/* test_lexer.c — the lexer against CPython 3.11's tokenize module (tokens/NAME.tok and
 * ast/NAME.tok, see gen_token_golden.sh), plus the lexer's error reporting against errors
 * CPython raises from its tokenizer (the lex_ and indent_ cases of errors/). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/lexer.h"
#include "tests/unit/frontend/test_util.h"

typedef struct Out {
    char *s;
    size_t len, cap;
} Out;

static void out_add(Out *o, const char *s, size_t n) {
    if (o->len + n + 1 > o->cap) {
        o->cap = (o->len + n + 1) * 2;
        o->s = realloc(o->s, o->cap);
        cr_assert_not_null(o->s);
    }
    memcpy(o->s + o->len, s, n);
    o->len += n;
    o->s[o->len] = '\0';
}

static void out_str(Out *o, const char *s) { out_add(o, s, strlen(s)); }

/* True when only DEDENTs and the ENDMARKER follow token i. */
static bool at_eof(const Lexer *lx, size_t i) {
    for (size_t k = i; k < lx->count; k++)
        if (lx->tokens[k].kind != TOK_DEDENT && lx->tokens[k].kind != TOK_ENDMARKER) return false;
    return true;
}

/* The golden format of gen_token_golden.sh. */
static char *render_tokens(const Lexer *lx) {
    Out o = {0};
    char buf[256];
    for (size_t i = 0; i < lx->count; i++) {
        const Token *t = &lx->tokens[i];
        const char *name = lex_token_name(t->kind);
        if (t->kind == TOK_ENDMARKER) {
            out_str(&o, "ENDMARKER\n");
        } else if (t->kind == TOK_DEDENT && at_eof(lx, i)) {
            out_str(&o, "DEDENT EOF\n");
        } else if (t->kind == TOK_NEWLINE || t->kind == TOK_INDENT || t->kind == TOK_DEDENT) {
            snprintf(buf, sizeof buf, "%s %d\n", name, t->lineno);
            out_str(&o, buf);
        } else {
            snprintf(buf, sizeof buf, "%s %d:%d-%d:%d ", name, t->lineno, t->col_offset,
                     t->end_lineno, t->end_col_offset);
            out_str(&o, buf);
            for (size_t k = 0; k < t->len; k++) {
                char c = t->start[k];
                if (c == '\\') out_str(&o, "\\\\");
                else if (c == '\n') out_str(&o, "\\n");
                else out_add(&o, &c, 1);
            }
            out_str(&o, "\n");
        }
    }
    return o.s;
}

static void check_token_corpus(const char *subdir) {
    FileList files = test_list_files(subdir, ".py");
    cr_assert_gt(files.count, 0, "no corpus in %s", subdir);
    for (size_t i = 0; i < files.count; i++) {
        size_t len;
        char *src = test_read(files.paths[i], &len);
        char *gpath = test_golden_path(files.paths[i], ".tok");
        char *golden = test_read(gpath, NULL);
        cr_assert_not_null(src);
        cr_assert_not_null(golden, "missing golden %s", gpath);
        Lexer lx;
        int r = lex_tokenize(&lx, src, len, NULL);
        cr_expect_eq(r, 0, "%s: unexpected lexer error: %s", test_basename(files.paths[i]),
                     lx.error.message ? lx.error.message : "?");
        char *got = render_tokens(&lx);
        cr_expect_str_eq(got, golden, "%s: tokens differ from CPython's", test_basename(files.paths[i]));
        free(got);
        lex_free(&lx);
        free(golden);
        free(gpath);
        free(src);
    }
    test_free_files(&files);
}

Test(lexer, tokens_match_cpython_tokenize) { check_token_corpus("tokens"); }

Test(lexer, ast_corpus_tokens_match_cpython_tokenize) { check_token_corpus("ast"); }

/* Tokenizer errors: for each case of the errors/ corpus whose CPython error comes from
 * CPython's tokenizer, the lexer alone must report it, with the same position. */
static const char *const tokenizer_messages[] = {
    "invalid decimal literal", "invalid hexadecimal literal", "invalid octal literal",
    "invalid binary literal", "invalid digit", "leading zeros", "unterminated",
    "unmatched '", "closing parenthesis", "was never closed", "invalid character",
    "invalid non-printable", "unexpected character after line continuation",
    "unindent does not match", "inconsistent use of tabs", "too many nested parentheses",
    "unexpected EOF", "source code cannot contain null bytes",
};

static bool is_tokenizer_message(const char *golden) {
    for (size_t i = 0; i < sizeof tokenizer_messages / sizeof *tokenizer_messages; i++)
        if (strstr(golden, tokenizer_messages[i])) return true;
    return false;
}

Test(lexer, tokenizer_errors_match_cpython) {
    FileList files = test_list_files("errors", ".py");
    size_t checked = 0;
    for (size_t i = 0; i < files.count; i++) {
        char *gpath = test_golden_path(files.paths[i], ".err");
        char *golden = test_read(gpath, NULL);
        cr_assert_not_null(golden, "missing %s", gpath);
        char *want = test_first_line(golden);
        if (is_tokenizer_message(want)) {
            size_t len;
            char *src = test_read(files.paths[i], &len);
            Lexer lx;
            int r = lex_tokenize(&lx, src, len, NULL);
            /* errors inside f-string expressions come from the f-string's own sub-lexer */
            bool in_fstring = strstr(src, "f\"") || strstr(src, "f'");
            cr_expect(r == -1 || in_fstring, "%s: the lexer found no error", test_basename(files.paths[i]));
            if (r < 0 && !(strstr(want, "was never closed") && !strstr(lx.error.message, "was never closed"))) {
                char got[1024];
                snprintf(got, sizeof got, "%s:%d:%d:%d:%d:%s", parse_error_kind_name(lx.error.kind),
                         lx.error.lineno, lx.error.col_offset, lx.error.end_lineno,
                         lx.error.end_col_offset, lx.error.message);
                cr_expect_str_eq(got, want, "%s", test_basename(files.paths[i]));
                checked++;
            }
            lex_free(&lx);
            free(src);
        }
        free(want);
        free(golden);
        free(gpath);
    }
    cr_expect_gt(checked, 40, "too few tokenizer errors checked (%zu)", checked);
    test_free_files(&files);
}

Test(lexer, token_names_and_spellings) {
    /* spellings are CPython's operator strings (Grammar/Tokens) */
    cr_expect_str_eq(lex_token_spelling(TOK_DOUBLESTAREQUAL), "**=");
    cr_expect_str_eq(lex_token_spelling(TOK_RARROW), "->");
    cr_expect_str_eq(lex_token_spelling(TOK_ELLIPSIS), "...");
    cr_expect_str_eq(lex_token_spelling(TOK_KW_NONLOCAL), "nonlocal");
    cr_expect_str_eq(lex_token_name(TOK_VBAREQUAL), "VBAREQUAL");
    cr_expect_str_eq(lex_token_name(TOK_KW_LAMBDA), "KW_LAMBDA");
    cr_expect_str_eq(lex_token_name((TokenKind)9999), "?");
}

Test(lexer, unicode_identifier_classes_follow_cpython) {
    /* str.isidentifier() / str.isprintable() of CPython 3.11 */
    cr_expect(lex_is_xid_start(0xE9));   /* é */
    cr_expect(lex_is_xid_start(0x3C0));  /* π */
    cr_expect(!lex_is_xid_start(0x20AC)); /* € */
    cr_expect(!lex_is_xid_start(0x0301)); /* combining acute: continue only */
    cr_expect(lex_is_xid_continue(0x0301));
    cr_expect(!lex_is_printable(0xA0));  /* no-break space */
    cr_expect(!lex_is_printable(0xAD));  /* soft hyphen */
    cr_expect(lex_is_printable(0xE9));
    cr_expect(lex_needs_normalization("\xef\xbd\x97", 3)); /* fullwidth w -> w under NFKC */
    cr_expect(!lex_needs_normalization("caf\xc3\xa9", 5));
    cr_expect(lex_needs_normalization("cafe\xcc\x81", 6)); /* e + combining acute composes */
}

/* Positions of INDENT/DEDENT/ENDMARKER are not in tokenize's output; CPython reports
 * errors at them from the tokenizer cursor (see errors/indent_*), so check the cursor. */
Test(lexer, layout_tokens_carry_cursor_columns) {
    const char *src = "if x:\n  y\n";
    Lexer lx;
    cr_assert_eq(lex_tokenize(&lx, src, strlen(src), NULL), 0);
    cr_assert_eq(lx.tokens[4].kind, TOK_INDENT);
    cr_expect_eq(lx.tokens[4].col_offset, -1);
    cr_expect_eq(lx.tokens[4].cur_col, 2);
    cr_assert_eq(lx.tokens[lx.count - 1].kind, TOK_ENDMARKER);
    cr_expect_eq(lx.tokens[lx.count - 1].lineno, 2);
    lex_free(&lx);
}
