/* test_symtable.c — symbol tables against CPython 3.11's symtable module: the scope part of the
 * .sym goldens of symtable/ and ast/ from gen_symtable_golden.sh (their "code ..." lines, the
 * code objects of compile(), are checked against Ember's compiler by tests/unit/vm/
 * test_compiler.c); plus the lookup API on scopes whose resolution the goldens fix. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/parser.h"
#include "src/frontend/symtable.h"
#include "tests/unit/frontend/frontend_dump.h"
#include "tests/unit/frontend/test_util.h"

typedef struct Built {
    AstArena *arena;
    AstModule *mod;
    SymTable *st;
    ParseErrorList errs;
} Built;

static Built build(const char *path) {
    Built b = {ast_arena_new(), NULL, NULL, {0}};
    parse_errors_init(&b.errs);
    size_t len;
    char *src = test_read(path, &len);
    cr_assert_not_null(src);
    ParseOptions opts = {test_basename(path), 0};
    parse_source(src, len, &opts, b.arena, &b.mod, &b.errs);
    cr_assert_not_null(b.mod, "%s does not parse", path);
    b.st = sym_build(b.mod, &b.errs);
    cr_assert_not_null(b.st, "%s: %s", path, b.errs.count ? b.errs.items[0].message : "?");
    free(src);
    return b;
}

static void release(Built *b) {
    sym_free(b->st);
    parse_errors_fini(&b->errs);
    ast_arena_free(b->arena);
}

static void check_corpus(const char *subdir, size_t min) {
    FileList files = test_list_files(subdir, ".py");
    cr_assert_geq(files.count, min);
    for (size_t i = 0; i < files.count; i++) {
        Built b = build(files.paths[i]);
        char *gpath = test_golden_path(files.paths[i], ".sym");
        char *golden = test_read(gpath, NULL);
        cr_assert_not_null(golden, "missing %s", gpath);
        char *code = strstr(golden, "\ncode ");   /* the compiler's part */
        if (code) code[1] = '\0';
        char *got = dump_symtable(b.st);
        cr_expect_str_eq(got, golden, "%s: symbol tables differ from CPython's",
                         test_basename(files.paths[i]));
        free(got);
        free(golden);
        free(gpath);
        release(&b);
    }
    test_free_files(&files);
}

Test(symtable, scopes_match_cpython) { check_corpus("symtable", 8); }

Test(symtable, ast_corpus_scopes_match_cpython) { check_corpus("ast", 30); }

static const SymScope *child_named(const SymScope *s, const char *name) {
    for (size_t i = 0; i < s->nchildren; i++)
        if (strcmp(s->children[i]->name, name) == 0) return s->children[i];
    cr_assert_fail("no child scope %s of %s", name, s->name);
    return NULL;
}

/* classes_scopes.py: resolutions fixed by its CPython golden (scopes 1..5), read through
 * the lookup API, including the class-body FREE case and name mangling. */
Test(symtable, lookup_api) {
    Built b = build(FRONTEND_TEST_DIR "/symtable/classes_scopes.py");
    const SymScope *top = sym_module_scope(b.st);
    const SymScope *f = child_named(top, "f");
    const SymScope *c = child_named(f, "C");
    cr_expect_eq(sym_scope_of(f, "x"), SYM_CELL);
    cr_expect_eq(sym_scope_of(f, "y"), SYM_CELL);
    cr_expect_eq(sym_scope_of(c, "x"), SYM_LOCAL);
    cr_expect_eq(sym_scope_of(c, "y"), SYM_CLASS_FREE); /* z = y in the class body */
    cr_expect_eq(sym_scope_of(c, "print"), SYM_GLOBAL_IMPLICIT);
    cr_expect_eq(sym_scope_of(c, "nope"), SYM_UNDEFINED);
    const SymSymbol *x = sym_lookup(c, "x");
    cr_assert_not_null(x);
    cr_expect(x->flags & SYM_DEF_FREE_CLASS); /* bound in C, free in its methods */
    cr_expect(c->needs_class_closure);
    cr_expect_eq(c->ncellvars, 1);
    cr_expect_str_eq(c->cellvars[0], "__class__");
    const SymScope *m = child_named(c, "m");
    cr_expect_eq(sym_scope_of(m, "x"), SYM_FREE);
    cr_expect(m->is_nested);
    const SymScope *mangled = child_named(top, "Mangled");
    cr_expect_eq(sym_scope_of(mangled, "__secret"), SYM_LOCAL);
    cr_expect_not_null(sym_lookup(mangled, "_Mangled__secret"));
    const SymScope *hidden = child_named(mangled, "__hidden");
    cr_expect_str_eq(hidden->varnames[1], "_Mangled__arg");
    cr_expect_eq(sym_scope_of(hidden, "__local"), SYM_LOCAL);
    release(&b);
}

/* Every scope-opening node maps to its scope, and back. */
static void check_node_map(const SymTable *st, const SymScope *s) {
    if (s->node) cr_expect_eq(sym_scope_for_node(st, s->node), s, "scope %s not mapped", s->name);
    for (size_t i = 0; i < s->nchildren; i++) check_node_map(st, s->children[i]);
}

Test(symtable, nodes_map_to_scopes) {
    Built b = build(FRONTEND_TEST_DIR "/symtable/comprehension_scopes.py");
    check_node_map(b.st, sym_module_scope(b.st));
    const SymScope *f = child_named(sym_module_scope(b.st), "f");
    const AstStmt *def = f->node;
    cr_assert_eq(def->kind, AST_STMT_FUNCTION_DEF);
    const AstExpr *listcomp = def->v.FunctionDef.body.items[0]->v.Assign.value;
    const SymScope *lc = sym_scope_for_node(b.st, listcomp);
    cr_assert_not_null(lc);
    cr_expect_eq(lc->comprehension, SYM_COMP_LIST);
    cr_expect_str_eq(lc->varnames[0], ".0");
    cr_expect_eq(sym_scope_of(lc, "scale"), SYM_FREE);
    cr_expect_null(sym_scope_for_node(b.st, def->v.FunctionDef.body.items[0]));
    release(&b);
}

/* The parameter lists in source order and the flags the compiler needs (values from
 * generators_flags.py's CPython golden: V/K/G flags and co_varnames). */
Test(symtable, parameters_and_flags) {
    Built b = build(FRONTEND_TEST_DIR "/symtable/generators_flags.py");
    const SymScope *both = child_named(sym_module_scope(b.st), "both");
    cr_assert_eq(both->nparams, 4);
    cr_expect_str_eq(both->params[0].name, "a");
    cr_expect_eq(both->params[1].kind, SYM_PARAM_VARARG);
    cr_expect_eq(both->params[2].kind, SYM_PARAM_KWONLY);
    cr_expect_eq(both->params[3].kind, SYM_PARAM_KWARG);
    cr_expect_eq(both->argcount, 1);
    cr_expect_eq(both->kwonlyargcount, 1);
    cr_expect(both->has_varargs && both->has_varkw);
    cr_expect_str_eq(both->varnames[1], "b"); /* co_varnames: a, b, args, kwargs */
    cr_expect_str_eq(both->varnames[2], "args");
    cr_expect(child_named(sym_module_scope(b.st), "gen")->is_generator);
    cr_expect(!child_named(sym_module_scope(b.st), "plain")->is_generator);
    release(&b);
}

Test(symtable, mangling_follows_cpython) {
    Built b = build(FRONTEND_TEST_DIR "/symtable/classes_scopes.py");
    cr_expect_str_eq(sym_mangle(b.st, "C", "__x"), "_C__x");
    cr_expect_str_eq(sym_mangle(b.st, "_C", "__x"), "_C__x");
    cr_expect_str_eq(sym_mangle(b.st, "C", "__x__"), "__x__");
    cr_expect_str_eq(sym_mangle(b.st, "C", "_x"), "_x");
    cr_expect_str_eq(sym_mangle(b.st, "___", "__x"), "__x");
    cr_expect_str_eq(sym_mangle(b.st, NULL, "__x"), "__x");
    cr_expect_str_eq(sym_mangle(b.st, "C", "__a.b"), "__a.b");
    release(&b);
}
