/* test_parser.c — the parser's AST against CPython 3.11's ast.dump, byte for byte, with and
 * without position attributes (ast/NAME.ast and NAME.attrs from gen_ast_golden.sh), and the
 * repr() helpers ast_dump relies on. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/ast.h"
#include "src/frontend/parser.h"
#include "tests/unit/frontend/test_util.h"

static void check_dump(const char *py_path, const AstModule *mod, bool attrs) {
    char *gpath = test_golden_path(py_path, attrs ? ".attrs" : ".ast");
    char *golden = test_read(gpath, NULL);
    cr_assert_not_null(golden, "missing golden %s", gpath);
    size_t n = strlen(golden);
    if (n && golden[n - 1] == '\n') golden[n - 1] = '\0';
    char *got = ast_dump(mod, attrs);
    cr_assert_not_null(got);
    cr_expect_str_eq(got, golden, "%s: ast.dump%s differs from CPython's", test_basename(py_path),
                     attrs ? "(include_attributes=True)" : "");
    free(got);
    free(golden);
    free(gpath);
}

Test(parser, ast_matches_cpython_ast_dump) {
    FileList files = test_list_files("ast", ".py");
    cr_assert_gt(files.count, 30);
    for (size_t i = 0; i < files.count; i++) {
        size_t len;
        char *src = test_read(files.paths[i], &len);
        AstArena *arena = ast_arena_new();
        ParseErrorList errs;
        parse_errors_init(&errs);
        AstModule *mod = NULL;
        ParseOptions opts = {files.paths[i], 0};
        int r = parse_source(src, len, &opts, arena, &mod, &errs);
        cr_expect_eq(r, 0, "%s: %s (line %d)", test_basename(files.paths[i]),
                     errs.count ? errs.items[0].message : "?", errs.count ? errs.items[0].lineno : 0);
        if (mod) {
            check_dump(files.paths[i], mod, false);
            check_dump(files.paths[i], mod, true);
        }
        parse_errors_fini(&errs);
        ast_arena_free(arena);
        free(src);
    }
    test_free_files(&files);
}

/* The same module parsed from a file path (parse_file) gives the same tree. */
Test(parser, parse_file_reads_the_file) {
    FileList files = test_list_files("ast", ".py");
    cr_assert_gt(files.count, 0);
    AstArena *arena = ast_arena_new();
    ParseErrorList errs;
    parse_errors_init(&errs);
    AstModule *mod = NULL;
    cr_expect_eq(parse_file(files.paths[0], arena, &mod, &errs), 0);
    cr_assert_not_null(mod);
    check_dump(files.paths[0], mod, true);
    parse_errors_fini(&errs);
    ast_arena_free(arena);
    test_free_files(&files);
}

Test(parser, missing_file_is_an_error) {
    AstArena *arena = ast_arena_new();
    ParseErrorList errs;
    parse_errors_init(&errs);
    AstModule *mod = NULL;
    cr_expect_eq(parse_file(FRONTEND_TEST_DIR "/no/such/file.py", arena, &mod, &errs), -1);
    cr_expect_null(mod);
    cr_expect_eq(errs.count, 1);
    parse_errors_fini(&errs);
    ast_arena_free(arena);
}

/* repr() of floats, strings and bytes as CPython prints them (expected values from
 * CPython 3.11's repr). */
Test(parser, repr_float_is_shortest_round_trip) {
    struct { double v; const char *repr; } cases[] = {
        {0.0, "0.0"}, {1.0, "1.0"}, {0.1, "0.1"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"},
        {1e-5, "1e-05"}, {0.0001, "0.0001"}, {1.5e300, "1.5e+300"}, {123456789.0, "123456789.0"},
        {0.30000000000000004, "0.30000000000000004"}, {2.5e-320, "2.5e-320"},
        {5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
        {INFINITY, "inf"}, {-1.5, "-1.5"}, {12345678901234567.0, "1.2345678901234568e+16"},
        {1234567890123456.7, "1234567890123456.8"}, {3.14159, "3.14159"}, {100.0, "100.0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = ast_repr_float(cases[i].v);
        cr_expect_str_eq(r, cases[i].repr);
        free(r);
    }
}

Test(parser, repr_str_and_bytes_follow_cpython) {
    struct { const char *s; size_t n; const char *repr; bool bytes; } cases[] = {
        {"abc", 3, "'abc'", false},
        {"it's", 4, "\"it's\"", false},
        {"'\"", 2, "'\\'\"'", false},
        {"a\0b", 3, "'a\\x00b'", false},
        {"\t\n\r\\", 4, "'\\t\\n\\r\\\\'", false},
        {"\xc3\xa9\xe2\x82\xac", 5, "'\xc3\xa9\xe2\x82\xac'", false},
        {"\xc2\xa0\xc2\xad\xe2\x80\x8b", 7, "'\\xa0\\xad\\u200b'", false},
        {"\xed\xa0\x80", 3, "'\\ud800'", false},
        {"\xf3\xb0\x80\x80", 4, "'\\U000f0000'", false},
        {"a\xff\x7f'", 4, "b\"a\\xff\\x7f'\"", true},
        {"", 0, "b''", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = cases[i].bytes ? ast_repr_bytes(cases[i].s, cases[i].n) : ast_repr_str(cases[i].s, cases[i].n);
        cr_expect_str_eq(r, cases[i].repr);
        free(r);
    }
}

/* The parser's public view of a tree: kinds, CPython's field names, positions in bytes. */
Test(parser, node_fields_follow_cpython) {
    const char *src = "x = f(1, *a, k=2)\nfor i in y:\n    pass\nelse:\n    z = 'caf\xc3\xa9' + w\n";
    AstArena *arena = ast_arena_new();
    ParseErrorList errs;
    parse_errors_init(&errs);
    AstModule *mod = NULL;
    cr_assert_eq(parse_source(src, strlen(src), NULL, arena, &mod, &errs), 0);
    cr_assert_eq(mod->body.count, 2);
    AstStmt *assign = mod->body.items[0];
    cr_assert_eq(assign->kind, AST_STMT_ASSIGN);
    cr_expect_eq(assign->v.Assign.targets.items[0]->v.Name.ctx, AST_STORE);
    AstExpr *call = assign->v.Assign.value;
    cr_assert_eq(call->kind, AST_EXPR_CALL);
    cr_expect_eq(call->v.Call.args.count, 2);
    cr_expect_eq(call->v.Call.args.items[1]->kind, AST_EXPR_STARRED);
    cr_expect_str_eq(call->v.Call.keywords.items[0]->arg, "k");
    cr_expect_eq(call->v.Call.keywords.items[0]->col_offset, 13);
    AstStmt *loop = mod->body.items[1];
    cr_assert_eq(loop->kind, AST_STMT_FOR);
    AstExpr *plus = loop->v.For.orelse.items[0]->v.Assign.value;
    AstExpr *w = plus->v.BinOp.right;
    cr_expect_eq(w->col_offset, 18); /* bytes: the e-acute before it is 2 bytes */
    cr_expect_eq(plus->v.BinOp.left->v.Constant.value.type, AST_CONST_STR);
    cr_expect_eq(plus->v.BinOp.left->v.Constant.value.s.len, 5);
    parse_errors_fini(&errs);
    ast_arena_free(arena);
}

Test(parser, big_int_literals_keep_their_value_as_text) {
    const char *src = "a = 9223372036854775807\nb = 9223372036854775808\nc = 0xFFFFFFFFFFFFFFFFFFFF\n";
    AstArena *arena = ast_arena_new();
    ParseErrorList errs;
    parse_errors_init(&errs);
    AstModule *mod = NULL;
    cr_assert_eq(parse_source(src, strlen(src), NULL, arena, &mod, &errs), 0);
    AstConstant *a = &mod->body.items[0]->v.Assign.value->v.Constant.value;
    AstConstant *b = &mod->body.items[1]->v.Assign.value->v.Constant.value;
    AstConstant *c = &mod->body.items[2]->v.Assign.value->v.Constant.value;
    cr_expect_eq(a->type, AST_CONST_INT);
    cr_expect_eq(a->i, INT64_MAX);
    cr_expect_eq(b->type, AST_CONST_BIG_INT);
    cr_expect_str_eq(b->s.data, "9223372036854775808");
    cr_expect_eq(c->type, AST_CONST_BIG_INT);
    cr_expect_str_eq(c->s.data, "1208925819614629174706175"); /* int('F'*20, 16) */
    parse_errors_fini(&errs);
    ast_arena_free(arena);
}
