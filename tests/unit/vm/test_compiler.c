/* tests/unit/vm/test_compiler.c — code objects the compiler builds, checked against the values
 * CPython 3.11 gives for the same source: co_varnames / co_cellvars / co_freevars order,
 * argument counts, flags (the CPython-defined bits), first lines, the lines instructions map
 * to, docstrings, every code object passing the verifier, and the code objects of the
 * front end's symbol-table corpus against their CPython goldens. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/strbuf.h"

#include "tests/unit/vm/support.h"
#include "vm/code.h"
#include "vm/gc.h"

static VM *vm;
static CodeObj *mod;
static void setup(void) { vm = t_vm_new(); }
static void teardown(void) { t_vm_free(vm); }

TestSuite(compiler, .init = setup, .fini = teardown);

static const char *src =
    "\n"
    "def outer(a, b=1, *args, c, d=2, **kw):\n"
    "    x = a + b\n"
    "    y = [x]\n"
    "    def inner(p):\n"
    "        nonlocal x\n"
    "        q = p + x + y[0]\n"
    "        def innermost():\n"
    "            return q + a\n"
    "        return innermost\n"
    "    return inner\n"
    "def gen(n):\n"
    "    for i in range(n):\n"
    "        yield i\n"
    "def plain():\n"
    "    \"\"\"doc\"\"\"\n"
    "    return 1\n"
    "class K:\n"
    "    def m(self):\n"
    "        return __class__\n"
    "lam = lambda z, *, w=3: z + w\n"
    "def params(a, b, /, c, *, d):\n"
    "    e = 1\n"
    "    del e\n"
    "def loop(n):\n"
    "    t = 0\n"
    "    for i in range(n):\n"
    "        if i:\n"
    "            t += i\n"
    "    return t\n";

/* CPython 3.11: compile(src, "t.py", "exec"), walking co_consts. */
static const struct Expect {
    const char *qualname, *varnames, *cellvars, *freevars;
    int argc, posonly, kwonly, flags, first;
} expected[] = {
    {"outer", "a,b,c,d,args,kw,inner", "a,x,y", "", 2, 0, 2, 0xf, 2},
    {"outer.<locals>.inner", "p,innermost", "q", "a,x,y", 1, 0, 0, 0x13, 5},
    {"outer.<locals>.inner.<locals>.innermost", "", "", "a,q", 0, 0, 0, 0x13, 8},
    {"gen", "n,i", "", "", 1, 0, 0, 0x23, 12},
    {"plain", "", "", "", 0, 0, 0, 0x3, 15},
    {"K", "", "__class__", "", 0, 0, 0, 0x0, 18},
    {"K.m", "self", "", "__class__", 1, 0, 0, 0x3, 19},
    {"<lambda>", "z,w", "", "", 1, 0, 1, 0x3, 21},
    {"params", "a,b,c,d,e", "", "", 3, 2, 1, 0x3, 22},
};

/* CPython-defined flag bits: OPTIMIZED NEWLOCALS VARARGS VARKEYWORDS NESTED GENERATOR */
#define CPY_FLAGS 0x3f

static void compile_src(void) {
    mod = t_compile(vm, src);
    vm_push_root(vm, val_obj(mod));
}

Test(compiler, names_order_counts_and_flags_match_cpython) {
    compile_src();
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        const struct Expect *e = &expected[i];
        CodeObj *co = t_find_code(mod, e->qualname);
        cr_assert_not_null(co, "no code object %s", e->qualname);
        cr_expect_str_eq(t_names(co->varnames), e->varnames, "%s co_varnames", e->qualname);
        cr_expect_str_eq(t_names(co->cellvars), e->cellvars, "%s co_cellvars", e->qualname);
        cr_expect_str_eq(t_names(co->freevars), e->freevars, "%s co_freevars", e->qualname);
        cr_expect_eq(co->argcount, e->argc, "%s co_argcount", e->qualname);
        cr_expect_eq(co->posonlyargcount, e->posonly, "%s co_posonlyargcount", e->qualname);
        cr_expect_eq(co->kwonlyargcount, e->kwonly, "%s co_kwonlyargcount", e->qualname);
        cr_expect_eq((int)(co->flags & CPY_FLAGS), e->flags, "%s co_flags", e->qualname);
        cr_expect_eq(co->firstlineno, e->first, "%s co_firstlineno", e->qualname);
        cr_expect_eq(co->nlocals, (int32_t)co->varnames->len, "%s co_nlocals", e->qualname);
    }
}

/* The distinct source lines a function's instructions map to (CPython: the positions of
 * dis.get_instructions, minus a line only RESUME has). */
static void lines_of(CodeObj *co, char *out, size_t cap) {
    bool seen[64] = {false};
    for (int32_t i = 0; i < co->ncode; i++)
        if (co->lines[i] > 0 && co->lines[i] < 64) seen[co->lines[i]] = true;
    out[0] = 0;
    for (int l = 0; l < 64; l++)
        if (seen[l]) snprintf(out + strlen(out), cap - strlen(out), "%s%d", out[0] ? "," : "", l);
}

Test(compiler, line_table_matches_cpython) {
    compile_src();
    char buf[256];
    lines_of(t_find_code(mod, "outer"), buf, sizeof buf);
    cr_expect_str_eq(buf, "2,3,4,5,11");   /* CPython: RESUME and MAKE_CELL on the def line */
    lines_of(t_find_code(mod, "loop"), buf, sizeof buf);
    cr_expect_str_eq(buf, "26,27,28,29,30");
    CodeObj *loop = t_find_code(mod, "loop");
    /* the loop's jump back belongs to the `for` line, as in CPython */
    for (int32_t i = 0; i < loop->ncode; i++)
        if (loop->code[i].op == OP_JUMP) cr_expect_eq(loop->lines[i], 27);
}

Test(compiler, docstrings_and_constants) {
    compile_src();
    CodeObj *plain = t_find_code(mod, "plain");
    cr_assert(plain->flags & CO_HAS_DOC);
    cr_assert(val_is_str(vm, plain->consts->items[0]));
    cr_assert_str_eq(AS_STR(plain->consts->items[0])->data, "doc");
    CodeObj *gen = t_find_code(mod, "gen");
    cr_assert(!(gen->flags & CO_HAS_DOC));
    cr_assert(val_is_none(gen->consts->items[0]), "consts[0] is None without a docstring");
}

static void verify_all(CodeObj *co) {
    cr_expect_eq(code_verify(vm, co), 0, "%s fails verification", co->qualname->data);
    if (!val_is_null(vm->exc)) vm_clear_exc(vm);
    for (int64_t i = 0; i < co->consts->len; i++) {
        Value c = co->consts->items[i];
        if (c.tag == VAL_OBJ && c.as.o->type == vm->t_code) verify_all((CodeObj *)c.as.o);
    }
}

Test(compiler, every_code_object_verifies) {
    compile_src();
    verify_all(mod);
    static const char *more =
        "def f(x):\n"
        "    try:\n"
        "        with open_it() as h, other():\n"
        "            for i in h:\n"
        "                if i: break\n"
        "                try:\n"
        "                    return {k: [v for v in vs if v] for k, vs in i}\n"
        "                finally:\n"
        "                    continue\n"
        "    except (ValueError, KeyError) as e:\n"
        "        raise RuntimeError from e\n"
        "    else:\n"
        "        yield from x\n"
        "    finally:\n"
        "        del x\n";
    CodeObj *co = t_compile(vm, more);
    vm_push_root(vm, val_obj(co));
    verify_all(co);
}

Test(compiler, syntax_errors_carry_cpython_attributes) {
    CodeObj *co = vm->compile(vm, "x = (1,\n", 8, "bad.py", 0);
    cr_assert_null(co);
    cr_assert(vm_exc_matches(vm, vm->e_SyntaxError));
    char *msg = em_error_message(vm);
    cr_assert_str_eq(msg, "SyntaxError: '(' was never closed (bad.py, line 1)"); /* CPython's str() */
    free(msg);
    Value e = vm->exc;
    Value line = vm_getattr_c(vm, e, "lineno"), off = vm_getattr_c(vm, e, "offset");
    Value end_line = vm_getattr_c(vm, e, "end_lineno"), end_off = vm_getattr_c(vm, e, "end_offset");
    cr_assert_eq(line.as.i, 1);
    cr_assert_eq(off.as.i, 5);
    cr_assert_eq(end_line.as.i, 1);
    cr_assert_eq(end_off.as.i, 0);
    vm_clear_exc(vm);
}

/* ---- the symbol-table corpus: code objects against CPython's compile() ---------------------- */

/* The "code ..." lines of the .sym goldens (tests/unit/frontend/gen_symtable_golden.sh): every
 * code object's co_name, co_firstlineno, co_varnames (parameters, then the fast locals in the
 * order CPython's compiler meets them), co_cellvars, co_freevars and V/K/N/G flags, sorted. */
static void code_lines(CodeObj *co, char ***lines, size_t *n) {
    StrBuf b = SB_INIT;
    sb_printf(&b, "code %s %d varnames=(%s)", co->name->data, co->firstlineno, t_names(co->varnames));
    sb_printf(&b, " cellvars=(%s)", t_names(co->cellvars));
    sb_printf(&b, " freevars=(%s) flags=", t_names(co->freevars));
    if (co->flags & CO_NEWLOCALS) {
        static const struct { uint32_t bit; char c; } fl[] = {
            {CO_VARARGS, 'V'}, {CO_VARKEYWORDS, 'K'}, {CO_NESTED, 'N'}, {CO_GENERATOR, 'G'}};
        for (size_t i = 0; i < 4; i++)
            if (co->flags & fl[i].bit) sb_addc(&b, fl[i].c);
    }
    *lines = realloc(*lines, (*n + 1) * sizeof **lines);
    (*lines)[(*n)++] = sb_take(&b);
    for (int64_t i = 0; i < co->consts->len; i++) {
        Value c = co->consts->items[i];
        if (c.tag == VAL_OBJ && c.as.o->type == vm->t_code) code_lines((CodeObj *)c.as.o, lines, n);
    }
}

static int cmp_line(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    StrBuf b = SB_INIT;
    char chunk[4096];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) sb_add(&b, chunk, r);
    fclose(f);
    return sb_take(&b);
}

static int check_code_corpus(const char *subdir) {
    char dirpath[1024];
    snprintf(dirpath, sizeof dirpath, "%s/%s", FRONTEND_CORPUS_DIR, subdir);
    DIR *d = opendir(dirpath);
    cr_assert_not_null(d, "no corpus %s", dirpath);
    int checked = 0;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        size_t len = strlen(ent->d_name);
        if (len < 4 || strcmp(ent->d_name + len - 3, ".py") != 0) continue;
        char path[1200], gpath[1200];
        snprintf(path, sizeof path, "%s/%s", dirpath, ent->d_name);
        snprintf(gpath, sizeof gpath, "%s/%.*s.sym", dirpath, (int)(len - 3), ent->d_name);
        char *src = read_file(path), *golden = read_file(gpath);
        cr_assert(src && golden, "%s or its .sym golden is missing", path);
        const char *expected = strstr(golden, "\ncode ");
        cr_assert_not_null(expected, "%s has no code lines", gpath);
        CodeObj *co = vm->compile(vm, src, strlen(src), path, 0);
        if (!co) {
            char *msg = em_error_message(vm);
            cr_expect_fail("%s: compile failed: %s", ent->d_name, msg ? msg : "?");
            vm_clear_exc(vm);
            free(src);
            free(golden);
            continue;
        }
        vm_push_root(vm, val_obj(co));
        char **lines = NULL;
        size_t n = 0;
        code_lines(co, &lines, &n);
        vm_pop_root(vm);
        qsort(lines, n, sizeof *lines, cmp_line);
        StrBuf got = SB_INIT;
        for (size_t i = 0; i < n; i++) {
            sb_printf(&got, "%s\n", lines[i]);
            free(lines[i]);
        }
        free(lines);
        char *g = sb_take(&got);
        cr_expect_str_eq(g, expected + 1, "%s: code objects differ from CPython's", ent->d_name);
        free(g);
        free(src);
        free(golden);
        checked++;
    }
    closedir(d);
    return checked;
}

Test(compiler, symtable_corpus_code_objects_match_cpython) {
    cr_expect_geq(check_code_corpus("symtable"), 8);
    cr_expect_geq(check_code_corpus("ast"), 30);
}
