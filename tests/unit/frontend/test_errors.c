/* test_errors.c — syntax errors against CPython 3.11: for every bad program of errors/ the
 * first error (kind, line, column, end, message) equals CPython's (.err) and Ember's
 * rendering equals the one derived from CPython's printout (.fmt); for the programs of
 * errors_multi/ every independent error is reported, in order (.errs).  Goldens come from
 * gen_error_golden.sh. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/parser.h"
#include "src/frontend/symtable.h"
#include "tests/unit/frontend/frontend_dump.h"
#include "tests/unit/frontend/test_util.h"

/* Parses and builds the symbol table, as the compiler's front half does. */
static void analyze(const char *path, ParseErrorList *errs, AstArena *arena) {
    size_t len;
    char *src = test_read(path, &len);
    cr_assert_not_null(src, "cannot read %s", path);
    AstModule *mod = NULL;
    ParseOptions opts = {test_basename(path), 0};
    parse_source(src, len, &opts, arena, &mod, errs);
    if (mod) sym_free(sym_build(mod, errs));
    parse_errors_fill_text(errs, src, len);
    free(src);
}

static void check_file(const char *path) {
    const char *name = test_basename(path);
    AstArena *arena = ast_arena_new();
    ParseErrorList errs;
    parse_errors_init(&errs);
    analyze(path, &errs, arena);
    char *epath = test_golden_path(path, ".err");
    char *golden = test_read(epath, NULL);
    cr_assert_not_null(golden, "missing golden %s", epath);
    cr_expect_gt(errs.count, 0, "%s: no error reported", name);
    if (errs.count) {
        char *all = dump_errors(&errs);
        char *first = test_first_line(all);
        char *want = test_first_line(golden);
        cr_expect_str_eq(first, want, "%s: first error differs from CPython's", name);
        free(first);
        free(want);
        free(all);
        char *fpath = test_golden_path(path, ".fmt");
        char *fmt = test_read(fpath, NULL);
        if (fmt) {
            char *got = parse_format_error(&errs.items[0], name);
            cr_expect_str_eq(got, fmt, "%s: rendering differs", name);
            free(got);
            free(fmt);
        }
        free(fpath);
    }
    free(golden);
    free(epath);
    parse_errors_fini(&errs);
    ast_arena_free(arena);
}

static void check_prefix(const char *prefix, size_t min) {
    FileList files = test_list_files("errors", ".py");
    size_t n = 0;
    for (size_t i = 0; i < files.count; i++) {
        if (strncmp(test_basename(files.paths[i]), prefix, strlen(prefix)) != 0) continue;
        check_file(files.paths[i]);
        n++;
    }
    cr_expect_geq(n, min, "only %zu %s cases", n, prefix);
    test_free_files(&files);
}

Test(errors, tokenizer_errors) { check_prefix("lex_", 40); }
Test(errors, indentation_errors) { check_prefix("indent_", 15); }
Test(errors, parser_errors) { check_prefix("parse_", 150); }
Test(errors, fstring_errors) { check_prefix("fstring_", 15); }
Test(errors, symtable_errors) { check_prefix("symtable_", 20); }
Test(errors, compiler_errors) { check_prefix("compile_", 30); }
/* four left since complex literals landed: except*, \N{...}, NFKC identifiers (two) */
Test(errors, unsupported_constructs) { check_prefix("unsupported_", 4); }

Test(errors, every_independent_error_is_reported) {
    FileList files = test_list_files("errors_multi", ".py");
    cr_assert_gt(files.count, 0);
    for (size_t i = 0; i < files.count; i++) {
        AstArena *arena = ast_arena_new();
        ParseErrorList errs;
        parse_errors_init(&errs);
        analyze(files.paths[i], &errs, arena);
        char *gpath = test_golden_path(files.paths[i], ".errs");
        char *golden = test_read(gpath, NULL);
        cr_assert_not_null(golden);
        char *got = dump_errors(&errs);
        cr_expect_str_eq(got, golden, "%s: errors differ from CPython's, one by one",
                         test_basename(files.paths[i]));
        free(got);
        free(golden);
        free(gpath);
        parse_errors_fini(&errs);
        ast_arena_free(arena);
    }
    test_free_files(&files);
}

/* The rendering rules of parse_format_error on hand-made errors (CPython's traceback
 * printer: leading spaces/tabs/form feeds stripped, caret under the offset, no caret when
 * the offset points into the stripped indentation). */
Test(errors, format_layout) {
    ParseErrorList errs;
    parse_errors_init(&errs);
    const char *line = "    x = f() = 1";
    parse_errors_add(&errs, PARSE_SYNTAX_ERROR, PARSE_PHASE_PARSER, "cannot assign to function call",
                     1, 9, 1, 12, line, strlen(line));
    parse_errors_add(&errs, PARSE_INDENTATION_ERROR, PARSE_PHASE_PARSER, "unexpected indent", 2, 2,
                     2, -1, "  y", 3);
    parse_errors_add(&errs, PARSE_TAB_ERROR, PARSE_PHASE_PARSER,
                     "inconsistent use of tabs and spaces in indentation", 3, 1, 3, 0, NULL, 0);
    char *a = parse_format_error(&errs.items[0], "m.py");
    cr_expect_str_eq(a, "m.py:1:9: SyntaxError: cannot assign to function call\n    x = f() = 1\n        ^\n");
    char *b = parse_format_error(&errs.items[1], "m.py");
    cr_expect_str_eq(b, "m.py:2:2: IndentationError: unexpected indent\n    y\n");
    char *c = parse_format_error(&errs.items[2], "m.py");
    cr_expect_str_eq(c, "m.py:3:1: TabError: inconsistent use of tabs and spaces in indentation\n");
    free(a);
    free(b);
    free(c);
    parse_errors_fini(&errs);
}

/* Errors of later phases never precede earlier ones (CPython stops at the first phase). */
Test(errors, phases_are_ordered) {
    ParseErrorList errs;
    parse_errors_init(&errs);
    parse_errors_add(&errs, PARSE_SYNTAX_ERROR, PARSE_PHASE_COMPILER, "c", 1, 1, 1, 1, NULL, 0);
    parse_errors_add(&errs, PARSE_SYNTAX_ERROR, PARSE_PHASE_SYMTABLE, "s", 2, 1, 2, 1, NULL, 0);
    parse_errors_add(&errs, PARSE_SYNTAX_ERROR, PARSE_PHASE_PARSER, "p", 3, 1, 3, 1, NULL, 0);
    parse_errors_add(&errs, PARSE_SYNTAX_ERROR, PARSE_PHASE_SYMTABLE, "s2", 4, 1, 4, 1, NULL, 0);
    cr_expect_str_eq(errs.items[0].message, "p");
    cr_expect_str_eq(errs.items[1].message, "s");
    cr_expect_str_eq(errs.items[2].message, "s2");
    cr_expect_str_eq(errs.items[3].message, "c");
    cr_expect_eq(parse_errors_count_upto(&errs, PARSE_PHASE_SYMTABLE), 3);
    parse_errors_fini(&errs);
}
