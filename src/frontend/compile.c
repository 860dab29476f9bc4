/* src/frontend/compile.c — the compiler's driver and statements: parse + symbol tables +
 * code generation of a module, compiler units (one per scope), name operations, function and
 * class definitions, and every statement, including the try/except/finally/with layouts and
 * the frame-block unwinding that return, break and continue need. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/compile_internal.h"
#include "src/frontend/mangle.h"
#include "src/frontend/parse_check.h"
#include "src/frontend/parser.h"
#include "vm/dict.h"
#include "vm/exc_syntax.h"
#include "vm/gc.h"
#include "vm/seq.h"
#include "vm/str.h"

/* ---- errors and emission ---------------------------------------------------------------- */

void comp_fail(Compiler *c) { longjmp(c->fail, 1); }

/* Raise SyntaxError (or IndentationError / TabError) as CPython's compiler does: args
 * (msg, (filename, lineno, offset, text, end_lineno, end_offset)), offsets 1-based. */
static Value comp_syntax_error(VM *vm, ParseErrorKind kind, const char *msg, const char *filename, int line, int col,
                               const char *text, int end_line, int end_col, bool details_in_args) {
    TypeObj *t = kind == PARSE_TAB_ERROR           ? vm->e_TabError
                 : kind == PARSE_INDENTATION_ERROR ? vm->e_IndentationError
                                                   : vm->e_SyntaxError;
    return vm_syntax_error(vm, t, msg, filename, line, col, text, end_line, end_col, details_in_args);
}

/* The first error of a list, raised. */
static void raise_first_error(VM *vm, const ParseErrorList *errs, const char *filename) {
    const ParseError *e = &errs->items[0];
    char *text = e->text && e->text_newline ? parse_strdup_printf("%s\n", e->text) : NULL;
    /* the symbol table's and future.c's errors carry their details as attributes only */
    bool in_args = e->phase != PARSE_PHASE_SYMTABLE && e->phase != PARSE_PHASE_FUTURE;
    comp_syntax_error(vm, e->kind, e->message, filename, e->lineno, e->col_offset, text ? text : e->text,
                      e->end_lineno, e->end_col_offset, in_args);
    free(text);
}

/* The text of source line `line` (1-based) into buf. */
static const char *source_line(const Compiler *c, int line, char *buf, size_t cap) {
    const char *p = c->src, *end = c->src + c->src_len;
    for (int l = 1; l < line && p < end; l++) {
        p = memchr(p, '\n', (size_t)(end - p));
        if (!p) return NULL;
        p++;
    }
    if (!p || p >= end) return NULL;
    const char *e = memchr(p, '\n', (size_t)(end - p));
    size_t n = e ? (size_t)(e - p) : (size_t)(end - p);
    if (n >= cap) n = cap - 1;
    memcpy(buf, p, n);
    buf[n] = 0;
    return buf;
}

void comp_error(Compiler *c, int line, int col, const char *fmt, ...) {
    char msg[512], text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *t = source_line(c, line, text, sizeof text);
    comp_syntax_error(c->vm, PARSE_SYNTAX_ERROR, msg, c->filename, line, col + 1, t, line, col + 1, true);
    if (!c->diag) {
        ParseError pe = {.kind = PARSE_SYNTAX_ERROR, .message = msg, .lineno = line, .col_offset = col + 1,
                         .end_lineno = line, .end_col_offset = col + 1, .text = (char *)t};
        c->diag = parse_format_error(&pe, c->filename);
    }
    comp_fail(c);
}

void comp_set_loc(Compiler *c, int line, int col) {
    c->u->line = line;
    c->u->col = col;
}

void comp_emit(Compiler *c, Opcode op, uint32_t arg) { asm_emit_at(&c->u->b, op, arg, c->u->line, c->u->col); }

void comp_emit_jump(Compiler *c, Opcode op, Label l) { asm_emit_at(&c->u->b, op, (uint32_t)l, c->u->line, c->u->col); }

Label comp_label(Compiler *c) { return asm_new_label(&c->u->b); }
void comp_bind(Compiler *c, Label l) { asm_bind(&c->u->b, l); }

uint32_t comp_const(Compiler *c, Value v) {
    int32_t i = asm_const(&c->u->b, v);
    if (i < 0) comp_fail(c);
    return (uint32_t)i;
}

StrObj *comp_str(Compiler *c, const char *s, size_t len) {
    StrObj *o = str_new(c->vm, s, (int64_t)len);
    if (!o) comp_fail(c);
    return o;
}

const char *comp_mangle(Compiler *c, const char *name) {
    const char *m = ast_mangle(c->arena, c->u->private_name, name);
    if (!m) {
        vm_no_memory(c->vm);
        comp_fail(c);
    }
    return m;
}

/* co_names index of a name used as it is (already mangled, or never mangled by CPython) */
static uint32_t name_index_raw(Compiler *c, const char *name) {
    int32_t i = asm_name_c(&c->u->b, name);
    if (i < 0) comp_fail(c);
    return (uint32_t)i;
}

uint32_t comp_name_index(Compiler *c, const char *name) { return name_index_raw(c, comp_mangle(c, name)); }

static uint32_t const_str(Compiler *c, const char *s) {
    StrObj *o = vm_intern_str(c->vm, s);
    if (!o) comp_fail(c);
    return comp_const(c, val_obj(o));
}

/* ---- units ---------------------------------------------------------------------------------- */

static int32_t index_in(ListObj *l, const char *name) {
    for (int64_t i = 0; i < l->len; i++)
        if (str_eq_c(AS_STR(l->items[i]), name)) return (int32_t)i;
    return -1;
}

static void enter_unit(Compiler *c, const void *node, const char *name, const char *qualname, int firstline) {
    Unit *u = calloc(1, sizeof *u);
    if (!u) {
        vm_no_memory(c->vm);
        comp_fail(c);
    }
    u->parent = c->u;
    u->ste = node ? sym_scope_for_node(c->st, node) : sym_module_scope(c->st);
    EM_ASSERT(u->ste != NULL, "compiler: no symbol table scope for a node");
    u->kind = u->ste->type;
    u->private_name = u->ste->private_name;
    u->qualname = strdup(qualname);
    u->line = firstline;
    u->col = -1;
    asm_builder_init(c->vm, &u->b, name, qualname, c->filename, firstline);
    c->u = u;
    if (!asm_builder_ok(&u->b)) comp_fail(c);
    /* co_varnames starts with the parameters; other fast locals join when first used
     * (comp_nameop), so their order is the order of compilation, as in CPython */
    const SymScope *ste = u->ste;
    for (size_t i = 0; i < ste->nvarnames; i++)
        if (asm_varname(&u->b, comp_str(c, ste->varnames[i], strlen(ste->varnames[i]))) < 0) comp_fail(c);
    for (size_t i = 0; i < ste->ncellvars; i++)
        if (asm_cellvar(&u->b, comp_str(c, ste->cellvars[i], strlen(ste->cellvars[i]))) < 0) comp_fail(c);
    for (size_t i = 0; i < ste->nfreevars; i++)
        if (asm_freevar(&u->b, comp_str(c, ste->freevars[i], strlen(ste->freevars[i]))) < 0) comp_fail(c);
    u->b.flags |= c->code_flags;
    if (u->kind == SYM_BLOCK_FUNCTION) {   /* CPython's compute_code_flags */
        u->b.flags |= CO_OPTIMIZED | CO_NEWLOCALS;
        if (ste->is_nested) u->b.flags |= CO_NESTED;
        if (ste->is_generator && ste->is_coroutine) u->b.flags |= CO_ASYNC_GENERATOR;
        else if (ste->is_coroutine) u->b.flags |= CO_COROUTINE;
        else if (ste->is_generator) u->b.flags |= CO_GENERATOR;
    }
}

/* Prologue: cells and the closure's free variables (CPython 3.11's MAKE_CELL/COPY_FREE_VARS). */
static void unit_prologue(Compiler *c) {
    Unit *u = c->u;
    int32_t nfree = (int32_t)u->b.freevars->len;
    if (nfree) comp_emit(c, OP_COPY_FREE_VARS, (uint32_t)nfree);
    for (int64_t i = 0; i < u->b.cellvars->len; i++) comp_emit(c, OP_MAKE_CELL, (uint32_t)i);
}

static CodeObj *exit_unit(Compiler *c) {
    Unit *u = c->u;
    CodeObj *co = asm_assemble(&u->b);
    asm_builder_fini(&u->b);
    c->u = u->parent;
    free((void *)u->qualname);
    free(u);
    if (!co) comp_fail(c);
    return co;
}

static void abandon_units(Compiler *c) {
    while (c->u) {
        Unit *u = c->u;
        asm_builder_fini(&u->b);
        c->u = u->parent;
        free((void *)u->qualname);
        free(u);
    }
}

/* CPython's compiler_set_qualname: nested names get the parent's qualname (plus ".<locals>"
 * under a function), except a def or class declared global where it is defined, which is
 * looked up under its mangled name. */
const char *comp_qualname(Compiler *c, const char *name) {
    static char buf[1024];
    Unit *u = c->u;
    if (!u || u->kind == SYM_BLOCK_MODULE || sym_scope_of(u->ste, name) == SYM_GLOBAL_EXPLICIT)
        snprintf(buf, sizeof buf, "%s", name);
    else if (u->kind == SYM_BLOCK_FUNCTION)
        snprintf(buf, sizeof buf, "%s.<locals>.%s", u->qualname, name);
    else
        snprintf(buf, sizeof buf, "%s.%s", u->qualname, name);
    return buf;
}

/* ---- names ---------------------------------------------------------------------------------- */

static uint32_t deref_index(Compiler *c, const char *name) {
    Unit *u = c->u;
    int32_t i = index_in(u->b.cellvars, name);
    if (i >= 0) return (uint32_t)i;
    i = index_in(u->b.freevars, name);
    EM_ASSERT(i >= 0, "compiler: free variable missing from the code's tables");
    return (uint32_t)(u->b.cellvars->len + i);
}

/* CPython's compiler_nameop: the symbol table says where the name lives. */
void comp_nameop(Compiler *c, const char *written, AstExprContext ctx) {
    Unit *u = c->u;
    const char *name = comp_mangle(c, written);
    bool function = u->kind == SYM_BLOCK_FUNCTION;
    enum { K_FAST, K_GLOBAL, K_DEREF, K_NAME } kind;
    switch (sym_scope_of(u->ste, written)) {
    case SYM_FREE:
    case SYM_CELL:
    case SYM_CLASS_FREE: kind = K_DEREF; break;
    case SYM_LOCAL: kind = function ? K_FAST : K_NAME; break;
    case SYM_GLOBAL_IMPLICIT: kind = function ? K_GLOBAL : K_NAME; break;
    case SYM_GLOBAL_EXPLICIT: kind = K_GLOBAL; break;
    default: kind = K_NAME; break;   /* a name the symbol table never saw */
    }
    switch (kind) {
    case K_FAST: {
        int32_t i = index_in(u->b.varnames, name);
        if (i < 0) {
            i = asm_varname(&u->b, comp_str(c, name, strlen(name)));
            if (i < 0) comp_fail(c);
        }
        comp_emit(c, ctx == AST_LOAD ? OP_LOAD_FAST : ctx == AST_STORE ? OP_STORE_FAST : OP_DELETE_FAST, (uint32_t)i);
        return;
    }
    case K_DEREF: {
        uint32_t i = deref_index(c, name);
        if (ctx == AST_LOAD) comp_emit(c, u->kind == SYM_BLOCK_CLASS ? OP_LOAD_CLASSDEREF : OP_LOAD_DEREF, i);
        else comp_emit(c, ctx == AST_STORE ? OP_STORE_DEREF : OP_DELETE_DEREF, i);
        return;
    }
    case K_GLOBAL: {
        uint32_t i = name_index_raw(c, name);
        if (ctx == AST_LOAD) comp_emit(c, OP_LOAD_GLOBAL, i << 1);
        else comp_emit(c, ctx == AST_STORE ? OP_STORE_GLOBAL : OP_DELETE_GLOBAL, i);
        return;
    }
    case K_NAME: {
        uint32_t i = name_index_raw(c, name);
        comp_emit(c, ctx == AST_LOAD ? OP_LOAD_NAME : ctx == AST_STORE ? OP_STORE_NAME : OP_DELETE_NAME, i);
        return;
    }
    }
}

/* ---- functions and classes ------------------------------------------------------------------ */

bool comp_is_docstring(const AstStmt *s) {
    return s && s->kind == AST_STMT_EXPR && s->v.Expr.value->kind == AST_EXPR_CONSTANT &&
           s->v.Expr.value->v.Constant.value.type == AST_CONST_STR;
}

/* The docstring constant of a body (None under optimize 2, as python -OO). */
static Value docstring_value(Compiler *c, const AstStmt *s) {
    if (c->optimize >= 2) return val_none();
    const AstConstant *k = &s->v.Expr.value->v.Constant.value;
    return val_obj(comp_str(c, k->s.data, k->s.len));
}

static void set_arg_counts(Compiler *c, const AstArguments *a) {
    Builder *b = &c->u->b;
    if (!a) return;
    b->posonlyargcount = (int32_t)a->posonlyargs.count;
    b->argcount = (int32_t)(a->posonlyargs.count + a->args.count);
    b->kwonlyargcount = (int32_t)a->kwonlyargs.count;
    if (a->vararg) b->flags |= CO_VARARGS;
    if (a->kwarg) b->flags |= CO_VARKEYWORDS;
}

CodeObj *comp_function_body(Compiler *c, const void *node, const char *name, const AstArguments *args,
                            const AstStmtSeq *body, const AstExpr *lambda_body, int firstline) {
    char qual[1024];
    snprintf(qual, sizeof qual, "%s", comp_qualname(c, name));
    enter_unit(c, node, name, qual, firstline);
    set_arg_counts(c, args);
    if (body && body->count && comp_is_docstring(body->items[0]) && c->optimize < 2) {
        comp_const(c, docstring_value(c, body->items[0]));
        c->u->b.flags |= CO_HAS_DOC;
    } else if (body) {
        comp_const(c, val_none());   /* consts[0] is None when there is no docstring, as CPython */
    }
    unit_prologue(c);
    if (lambda_body) {
        comp_set_loc(c, lambda_body->lineno, lambda_body->col_offset);
        comp_expr(c, lambda_body);
        if (c->u->b.flags & CO_GENERATOR) {
            comp_emit(c, OP_POP_TOP, 0);
            comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
        }
        comp_emit(c, OP_RETURN_VALUE, 0);
    } else {
        size_t start = (body->count && comp_is_docstring(body->items[0])) ? 1 : 0;
        for (size_t i = start; i < body->count; i++) comp_stmt(c, body->items[i]);
        comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
        comp_emit(c, OP_RETURN_VALUE, 0);
    }
    return exit_unit(c);
}

void comp_make_closure(Compiler *c, CodeObj *co, uint32_t flags) {
    int64_t nfree = co->freevars->len;
    if (nfree) {
        for (int64_t i = 0; i < nfree; i++) {
            const char *name = AS_STR(co->freevars->items[i])->data;
            comp_emit(c, OP_LOAD_CLOSURE, deref_index(c, name));
        }
        comp_emit(c, OP_BUILD_TUPLE, (uint32_t)nfree);
        flags |= 8;
    }
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_obj(co)));
    comp_emit(c, OP_MAKE_FUNCTION, flags);
}

/* An annotation: evaluated, or under `from __future__ import annotations` (PEP 563) the
 * string CPython's unparser makes of it (ast_unparse.c). */
static void comp_annotation(Compiler *c, const AstExpr *e) {
    if (!c->future_annotations) {
        comp_expr(c, e);
        return;
    }
    char *text = ast_unparse_expr(e);
    if (!text) {
        vm_no_memory(c->vm);
        comp_fail(c);
    }
    StrObj *str = str_new(c->vm, text, (int64_t)strlen(text));
    free(text);
    if (!str) comp_fail(c);
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_obj(str)));
}

/* Push defaults/kwdefaults/annotations for a def or lambda; returns MAKE_FUNCTION flags.  The
 * parameter names keying __kwdefaults__ and __annotations__ are mangled, as co_varnames are. */
static uint32_t push_defaults(Compiler *c, const AstArguments *a, const AstExpr *returns, bool annotations) {
    uint32_t flags = 0;
    if (a->defaults.count) {
        comp_expr_seq_push(c, &a->defaults);
        comp_emit(c, OP_BUILD_TUPLE, (uint32_t)a->defaults.count);
        flags |= 1;
    }
    int nkw = 0;
    for (size_t i = 0; i < a->kwonlyargs.count; i++) {
        if (!a->kw_defaults.items[i]) continue;
        comp_emit(c, OP_LOAD_CONST, const_str(c, comp_mangle(c, a->kwonlyargs.items[i]->arg)));
        comp_expr(c, a->kw_defaults.items[i]);
        nkw++;
    }
    if (nkw) {
        comp_emit(c, OP_BUILD_MAP, (uint32_t)nkw);
        flags |= 2;
    }
    if (annotations) {
        int n = 0;
        /* CPython's order: positional, *args, keyword-only, **kwargs, return */
        const AstArgSeq *seqs[3] = {&a->posonlyargs, &a->args, &a->kwonlyargs};
        AstArg *extra[2] = {a->vararg, a->kwarg};
        for (int s = 0; s < 3; s++) {
            if (s == 2 && extra[0] && extra[0]->annotation) {
                comp_emit(c, OP_LOAD_CONST, const_str(c, comp_mangle(c, extra[0]->arg)));
                comp_annotation(c, extra[0]->annotation);
                n++;
            }
            for (size_t i = 0; i < seqs[s]->count; i++) {
                AstArg *arg = seqs[s]->items[i];
                if (!arg->annotation) continue;
                comp_emit(c, OP_LOAD_CONST, const_str(c, comp_mangle(c, arg->arg)));
                comp_annotation(c, arg->annotation);
                n++;
            }
        }
        if (extra[1] && extra[1]->annotation) {
            comp_emit(c, OP_LOAD_CONST, const_str(c, comp_mangle(c, extra[1]->arg)));
            comp_annotation(c, extra[1]->annotation);
            n++;
        }
        if (returns) {
            comp_emit(c, OP_LOAD_CONST, const_str(c, "return"));
            comp_annotation(c, returns);
            n++;
        }
        if (n) {
            comp_emit(c, OP_BUILD_TUPLE, (uint32_t)(2 * n));
            flags |= 4;
        }
    }
    return flags;
}

static void comp_function_def(Compiler *c, const AstStmt *s) {
    const AstExprSeq *decos = &s->v.FunctionDef.decorator_list;
    for (size_t i = 0; i < decos->count; i++) comp_expr(c, decos->items[i]);
    int firstline = decos->count ? decos->items[0]->lineno : s->lineno;
    uint32_t flags = push_defaults(c, s->v.FunctionDef.args, s->v.FunctionDef.returns, true);
    CodeObj *co = comp_function_body(c, s, s->v.FunctionDef.name, s->v.FunctionDef.args, &s->v.FunctionDef.body,
                                     NULL, firstline);
    comp_set_loc(c, s->lineno, s->col_offset);
    vm_push_root(c->vm, val_obj(co));
    comp_make_closure(c, co, flags);
    vm_pop_root(c->vm);
    for (size_t i = 0; i < decos->count; i++) {
        /* decorator(fn): the decorator is below the function; CALL needs (NULL, callable, arg) */
        comp_emit(c, OP_PUSH_NULL, 0);
        comp_emit(c, OP_SWAP, 3);
        comp_emit(c, OP_SWAP, 2);
        comp_emit(c, OP_CALL, 1);
    }
    comp_nameop(c, s->v.FunctionDef.name, AST_STORE);
}

/* Does a statement list contain an annotated assignment, looking into nested blocks but not
 * into functions and classes (CPython's find_ann)? */
static bool find_ann(const AstStmtSeq *body) {
    for (size_t i = 0; i < body->count; i++) {
        const AstStmt *s = body->items[i];
        switch (s->kind) {
        case AST_STMT_ANN_ASSIGN: return true;
        case AST_STMT_FOR:
        case AST_STMT_ASYNC_FOR: if (find_ann(&s->v.For.body) || find_ann(&s->v.For.orelse)) return true; break;
        case AST_STMT_WHILE: if (find_ann(&s->v.While.body) || find_ann(&s->v.While.orelse)) return true; break;
        case AST_STMT_IF: if (find_ann(&s->v.If.body) || find_ann(&s->v.If.orelse)) return true; break;
        case AST_STMT_WITH:
        case AST_STMT_ASYNC_WITH: if (find_ann(&s->v.With.body)) return true; break;
        case AST_STMT_MATCH:
            for (size_t m = 0; m < s->v.Match.cases.count; m++)
                if (find_ann(&s->v.Match.cases.items[m]->body)) return true;
            break;
        case AST_STMT_TRY:
            if (find_ann(&s->v.Try.body) || find_ann(&s->v.Try.orelse) || find_ann(&s->v.Try.finalbody)) return true;
            for (size_t h = 0; h < s->v.Try.handlers.count; h++)
                if (find_ann(&s->v.Try.handlers.items[h]->body)) return true;
            break;
        default: break;
        }
    }
    return false;
}

static void comp_class_def(Compiler *c, const AstStmt *s) {
    const AstExprSeq *decos = &s->v.ClassDef.decorator_list;
    for (size_t i = 0; i < decos->count; i++) comp_expr(c, decos->items[i]);
    int firstline = decos->count ? decos->items[0]->lineno : s->lineno;
    /* the class body */
    char qual[1024];
    snprintf(qual, sizeof qual, "%s", comp_qualname(c, s->v.ClassDef.name));
    enter_unit(c, s, s->v.ClassDef.name, qual, firstline);
    c->u->b.flags &= ~(uint32_t)(CO_OPTIMIZED | CO_NEWLOCALS);
    unit_prologue(c);
    comp_set_loc(c, s->lineno, s->col_offset);
    comp_emit(c, OP_LOAD_NAME, comp_name_index(c, "__name__"));
    comp_emit(c, OP_STORE_NAME, comp_name_index(c, "__module__"));
    comp_emit(c, OP_LOAD_CONST, const_str(c, qual));
    comp_emit(c, OP_STORE_NAME, comp_name_index(c, "__qualname__"));
    const AstStmtSeq *body = &s->v.ClassDef.body;
    if (find_ann(body)) comp_emit(c, OP_SETUP_ANNOTATIONS, 0);
    size_t start = 0;
    if (body->count && comp_is_docstring(body->items[0])) {
        comp_set_loc(c, body->items[0]->lineno, body->items[0]->col_offset);
        comp_emit(c, OP_LOAD_CONST, comp_const(c, docstring_value(c, body->items[0])));
        comp_emit(c, OP_STORE_NAME, comp_name_index(c, "__doc__"));
        start = 1;
    }
    for (size_t i = start; i < body->count; i++) comp_stmt(c, body->items[i]);
    if (c->u->ste->needs_class_closure) {
        int32_t i = index_in(c->u->b.cellvars, "__class__");
        EM_ASSERT(i >= 0, "compiler: class needs __class__ but has no such cell");
        comp_emit(c, OP_LOAD_CLOSURE, (uint32_t)i);
        comp_emit(c, OP_COPY, 1);
        comp_emit(c, OP_STORE_NAME, comp_name_index(c, "__classcell__"));
    } else {
        comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
    }
    comp_emit(c, OP_RETURN_VALUE, 0);
    CodeObj *co = exit_unit(c);
    /* __build_class__(body_fn, name, *bases, **keywords) */
    comp_set_loc(c, s->lineno, s->col_offset);
    vm_push_root(c->vm, val_obj(co));
    comp_emit(c, OP_PUSH_NULL, 0);
    comp_emit(c, OP_LOAD_BUILD_CLASS, 0);
    comp_make_closure(c, co, 0);
    vm_pop_root(c->vm);
    comp_emit(c, OP_LOAD_CONST, const_str(c, s->v.ClassDef.name));
    /* bases and keywords go through the ordinary call path */
    AstExpr call = {0};
    call.kind = AST_EXPR_CALL;
    call.lineno = s->lineno;
    call.col_offset = s->col_offset;
    call.v.Call.args = s->v.ClassDef.bases;
    call.v.Call.keywords = s->v.ClassDef.keywords;
    comp_call_args(c, &call, 2);
    for (size_t i = 0; i < decos->count; i++) {
        comp_emit(c, OP_PUSH_NULL, 0);
        comp_emit(c, OP_SWAP, 3);
        comp_emit(c, OP_SWAP, 2);
        comp_emit(c, OP_CALL, 1);
    }
    comp_nameop(c, s->v.ClassDef.name, AST_STORE);
}

/* ---- frame blocks --------------------------------------------------------------------------- */

static void push_fblock(Compiler *c, FBlockKind kind, Label block, Label exit, const void *datum) {
    Unit *u = c->u;
    if (u->nfblocks >= 32) comp_error(c, u->line, u->col, "too many statically nested blocks");
    u->fblocks[u->nfblocks++] = (FBlock){kind, block, exit, datum};
}

static void pop_fblock(Compiler *c) { c->u->nfblocks--; }

/* __exit__(None, None, None) of the with block below; its result stays on the stack. */
static void call_exit_with_nones(Compiler *c) {
    uint32_t none = comp_const(c, val_none());
    comp_emit(c, OP_LOAD_CONST, none);
    comp_emit(c, OP_LOAD_CONST, none);
    comp_emit(c, OP_LOAD_CONST, none);
    comp_emit(c, OP_CALL, 2);
}

/* Emit the code that leaves frame block `fb` early (return/break/continue). */
static void unwind_fblock(Compiler *c, FBlock *fb, bool preserve_tos) {
    switch (fb->kind) {
    case FB_WHILE_LOOP:
    case FB_EXCEPTION_HANDLER:        /* the HANDLER_CLEANUP inside it pops the except state */
    case FB_EXCEPTION_GROUP_HANDLER:
    case FB_ASYNC_COMPREHENSION_GENERATOR:
        return;
    case FB_TRY_EXCEPT:
        comp_emit(c, OP_POP_BLOCK, 0);
        return;
    case FB_FOR_LOOP:
        if (preserve_tos) comp_emit(c, OP_SWAP, 2);
        comp_emit(c, OP_POP_TOP, 0);
        return;
    case FB_FINALLY_TRY: {
        /* run the finally body inline; the caller has hidden this block and the ones above */
        comp_emit(c, OP_POP_BLOCK, 0);
        if (preserve_tos) push_fblock(c, FB_POP_VALUE, -1, -1, NULL);
        const AstStmt *t = fb->datum;
        comp_stmts(c, &t->v.Try.finalbody);
        if (preserve_tos) pop_fblock(c);
        return;
    }
    case FB_FINALLY_END:
        if (preserve_tos) comp_emit(c, OP_SWAP, 2);
        comp_emit(c, OP_POP_TOP, 0);   /* the exception */
        if (preserve_tos) comp_emit(c, OP_SWAP, 2);
        comp_emit(c, OP_POP_BLOCK, 0);
        comp_emit(c, OP_POP_EXCEPT, 0);
        return;
    case FB_WITH:
    case FB_ASYNC_WITH:
        comp_emit(c, OP_POP_BLOCK, 0);
        if (preserve_tos) comp_emit(c, OP_SWAP, 2);
        call_exit_with_nones(c);
        if (fb->kind == FB_ASYNC_WITH) comp_await_tos(c, 2);
        comp_emit(c, OP_POP_TOP, 0);
        return;
    case FB_HANDLER_CLEANUP:
        if (fb->datum) comp_emit(c, OP_POP_BLOCK, 0);
        if (preserve_tos) comp_emit(c, OP_SWAP, 2);
        comp_emit(c, OP_POP_BLOCK, 0);
        comp_emit(c, OP_POP_EXCEPT, 0);
        if (fb->datum) {
            comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
            comp_nameop(c, fb->datum, AST_STORE);
            comp_nameop(c, fb->datum, AST_DEL);
        }
        return;
    case FB_POP_VALUE:
        if (preserve_tos) comp_emit(c, OP_SWAP, 2);
        comp_emit(c, OP_POP_TOP, 0);
        return;
    }
}

/* Unwind every block (return), or up to the innermost loop (break/continue).  Each block's
 * unwind code is generated with only the blocks below it visible (a finally body that itself
 * returns must not run the blocks above again); the stack is restored afterwards. */
static FBlock *unwind_stack(Compiler *c, bool preserve_tos, bool to_loop) {
    Unit *u = c->u;
    FBlock saved[32];
    int n = u->nfblocks;
    memcpy(saved, u->fblocks, sizeof saved);
    FBlock *loop = NULL;
    for (int i = n - 1; i >= 0; i--) {
        FBlock fb = saved[i];
        if (to_loop && (fb.kind == FB_WHILE_LOOP || fb.kind == FB_FOR_LOOP)) {
            loop = &u->fblocks[i];
            break;
        }
        u->nfblocks = i;
        unwind_fblock(c, &fb, preserve_tos);
    }
    memcpy(u->fblocks, saved, sizeof saved);
    u->nfblocks = n;
    return loop;
}

/* ---- statements ---------------------------------------------------------------------------- */

static void comp_return(Compiler *c, const AstStmt *s) {
    if (c->u->kind != SYM_BLOCK_FUNCTION) comp_error(c, s->lineno, s->col_offset, "'return' outside function");
    bool preserve = s->v.Return.value != NULL;
    if (preserve) comp_expr(c, s->v.Return.value);
    else comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
    unwind_stack(c, true, false);
    comp_set_loc(c, s->lineno, s->col_offset);
    comp_emit(c, OP_RETURN_VALUE, 0);
}

static void comp_break_continue(Compiler *c, const AstStmt *s, bool is_break) {
    FBlock *loop = unwind_stack(c, false, true);
    if (!loop)
        comp_error(c, s->lineno, s->col_offset, is_break ? "'break' outside loop" : "'continue' not properly in loop");
    if (is_break) {
        FBlock copy = *loop;
        unwind_fblock(c, &copy, false);
        comp_emit_jump(c, OP_JUMP, loop->exit);
    } else {
        comp_emit_jump(c, OP_JUMP, loop->block);
    }
}

static void comp_if(Compiler *c, const AstStmt *s) {
    Label end = comp_label(c);
    Label next = s->v.If.orelse.count ? comp_label(c) : end;
    comp_jump_if(c, s->v.If.test, next, false);
    comp_stmts(c, &s->v.If.body);
    if (s->v.If.orelse.count) {
        comp_emit_jump(c, OP_JUMP, end);
        comp_bind(c, next);
        comp_stmts(c, &s->v.If.orelse);
    }
    comp_bind(c, end);
}

static void comp_while(Compiler *c, const AstStmt *s) {
    Label top = comp_label(c), body = comp_label(c), orelse = comp_label(c), end = comp_label(c);
    comp_bind(c, top);
    comp_jump_if(c, s->v.While.test, orelse, false);
    comp_bind(c, body);
    push_fblock(c, FB_WHILE_LOOP, top, end, NULL);
    comp_stmts(c, &s->v.While.body);
    pop_fblock(c);
    comp_set_loc(c, s->lineno, s->col_offset);
    comp_jump_if(c, s->v.While.test, body, true);
    comp_bind(c, orelse);
    comp_stmts(c, &s->v.While.orelse);
    comp_bind(c, end);
}

static void comp_for(Compiler *c, const AstStmt *s) {
    Label top = comp_label(c), cleanup = comp_label(c), end = comp_label(c);
    comp_expr(c, s->v.For.iter);
    comp_set_loc(c, s->lineno, s->col_offset);
    comp_emit(c, OP_GET_ITER, 0);
    comp_bind(c, top);
    push_fblock(c, FB_FOR_LOOP, top, end, NULL);
    comp_emit_jump(c, OP_FOR_ITER, cleanup);
    comp_store_target(c, s->v.For.target);
    comp_stmts(c, &s->v.For.body);
    comp_set_loc(c, s->lineno, s->col_offset);
    comp_emit_jump(c, OP_JUMP, top);
    pop_fblock(c);
    comp_bind(c, cleanup);
    comp_stmts(c, &s->v.For.orelse);
    comp_bind(c, end);
}

/* compiler_async_for: __anext__() awaited under a handler that ends the loop on
 * StopAsyncIteration (END_ASYNC_FOR). */
static void comp_async_for(Compiler *c, const AstStmt *s) {
    Label start = comp_label(c), except = comp_label(c), end = comp_label(c);
    comp_expr(c, s->v.For.iter);
    comp_set_loc(c, s->lineno, s->col_offset);
    comp_emit(c, OP_GET_AITER, 0);
    comp_bind(c, start);
    push_fblock(c, FB_FOR_LOOP, start, end, NULL);
    comp_emit_jump(c, OP_SETUP_FINALLY, except);
    comp_emit(c, OP_GET_ANEXT, 0);
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
    comp_yield_from_loop(c);
    comp_emit(c, OP_POP_BLOCK, 0);
    comp_store_target(c, s->v.For.target);
    comp_stmts(c, &s->v.For.body);
    comp_set_loc(c, s->lineno, s->col_offset);
    comp_emit_jump(c, OP_JUMP, start);
    pop_fblock(c);
    comp_bind(c, except);
    /* the END_ASYNC_FOR belongs to the iterable's line, as CPython places it */
    comp_set_loc(c, s->v.For.iter->lineno, s->v.For.iter->col_offset);
    comp_emit(c, OP_END_ASYNC_FOR, 0);
    comp_stmts(c, &s->v.For.orelse);
    comp_bind(c, end);
}

static void comp_raise(Compiler *c, const AstStmt *s) {
    uint32_t n = 0;
    if (s->v.Raise.exc) {
        comp_expr(c, s->v.Raise.exc);
        n = 1;
        if (s->v.Raise.cause) {
            comp_expr(c, s->v.Raise.cause);
            n = 2;
        }
    }
    comp_set_loc(c, s->lineno, s->col_offset);
    comp_emit(c, OP_RAISE_VARARGS, n);
}

static void comp_try_except(Compiler *c, const AstStmt *s) {
    Label body = comp_label(c), except = comp_label(c), orelse = comp_label(c), end = comp_label(c),
          cleanup = comp_label(c);
    comp_emit_jump(c, OP_SETUP_FINALLY, except);
    comp_bind(c, body);
    push_fblock(c, FB_TRY_EXCEPT, body, -1, NULL);
    comp_stmts(c, &s->v.Try.body);
    pop_fblock(c);
    comp_emit(c, OP_POP_BLOCK, 0);
    comp_bind(c, orelse);
    comp_stmts(c, &s->v.Try.orelse);
    comp_emit_jump(c, OP_JUMP, end);
    comp_bind(c, except);
    comp_emit_jump(c, OP_SETUP_CLEANUP, cleanup);
    comp_emit(c, OP_PUSH_EXC_INFO, 0);
    push_fblock(c, FB_EXCEPTION_HANDLER, -1, -1, NULL);
    const AstExceptHandlerSeq *hs = &s->v.Try.handlers;
    for (size_t i = 0; i < hs->count; i++) {
        const AstExceptHandler *h = hs->items[i];
        comp_set_loc(c, h->lineno, h->col_offset);
        if (!h->type && i + 1 < hs->count) comp_error(c, h->lineno, h->col_offset, "default 'except:' must be last");
        Label next = comp_label(c);
        if (h->type) {
            comp_expr(c, h->type);
            comp_emit(c, OP_CHECK_EXC_MATCH, 0);
            comp_emit_jump(c, OP_POP_JUMP_IF_FALSE, next);
        }
        if (h->name) {
            Label cleanup_end = comp_label(c), cleanup_body = comp_label(c);
            comp_nameop(c, h->name, AST_STORE);
            comp_emit_jump(c, OP_SETUP_CLEANUP, cleanup_end);
            comp_bind(c, cleanup_body);
            push_fblock(c, FB_HANDLER_CLEANUP, cleanup_body, -1, h->name);
            comp_stmts(c, &h->body);
            pop_fblock(c);
            comp_emit(c, OP_POP_BLOCK, 0);
            comp_emit(c, OP_POP_BLOCK, 0);
            comp_emit(c, OP_POP_EXCEPT, 0);
            comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
            comp_nameop(c, h->name, AST_STORE);
            comp_nameop(c, h->name, AST_DEL);
            comp_emit_jump(c, OP_JUMP, end);
            /* an exception inside the handler: clear the name, then re-raise */
            comp_bind(c, cleanup_end);
            comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
            comp_nameop(c, h->name, AST_STORE);
            comp_nameop(c, h->name, AST_DEL);
            comp_emit(c, OP_RERAISE, 0);
        } else {
            Label cleanup_body = comp_label(c);
            comp_emit(c, OP_POP_TOP, 0);
            comp_bind(c, cleanup_body);
            push_fblock(c, FB_HANDLER_CLEANUP, cleanup_body, -1, NULL);
            comp_stmts(c, &h->body);
            pop_fblock(c);
            comp_emit(c, OP_POP_BLOCK, 0);
            comp_emit(c, OP_POP_EXCEPT, 0);
            comp_emit_jump(c, OP_JUMP, end);
        }
        comp_bind(c, next);
    }
    pop_fblock(c);
    /* no clause matched: re-raise with the handled exception restored by the cleanup */
    comp_emit(c, OP_RERAISE, 0);
    comp_bind(c, cleanup);
    comp_emit(c, OP_SWAP, 2);
    comp_emit(c, OP_POP_EXCEPT, 0);
    comp_emit(c, OP_RERAISE, 0);
    comp_bind(c, end);
}

static void comp_try_finally(Compiler *c, const AstStmt *s) {
    Label body = comp_label(c), end = comp_label(c), exit = comp_label(c), cleanup = comp_label(c);
    comp_emit_jump(c, OP_SETUP_FINALLY, end);
    comp_bind(c, body);
    push_fblock(c, FB_FINALLY_TRY, body, end, s);
    if (s->v.Try.handlers.count) comp_try_except(c, s);
    else comp_stmts(c, &s->v.Try.body);
    comp_emit(c, OP_POP_BLOCK, 0);
    pop_fblock(c);
    comp_stmts(c, &s->v.Try.finalbody);
    comp_emit_jump(c, OP_JUMP, exit);
    /* the exceptional path: run the finally body, then re-raise */
    comp_bind(c, end);
    comp_emit_jump(c, OP_SETUP_CLEANUP, cleanup);
    comp_emit(c, OP_PUSH_EXC_INFO, 0);
    push_fblock(c, FB_FINALLY_END, end, -1, NULL);
    comp_stmts(c, &s->v.Try.finalbody);
    pop_fblock(c);
    comp_emit(c, OP_RERAISE, 0);
    comp_bind(c, cleanup);
    comp_emit(c, OP_SWAP, 2);
    comp_emit(c, OP_POP_EXCEPT, 0);
    comp_emit(c, OP_RERAISE, 0);
    comp_bind(c, exit);
}

/* compiler_with / compiler_async_with, one item at a time (the rest nest inside). */
static void comp_with_items(Compiler *c, const AstStmt *s, size_t pos) {
    const AstWithItem *item = s->v.With.items.items[pos];
    bool is_async = s->kind == AST_STMT_ASYNC_WITH;
    Label block = comp_label(c), final = comp_label(c), exit = comp_label(c), cleanup = comp_label(c),
          suppress = comp_label(c);
    comp_expr(c, item->context_expr);
    comp_set_loc(c, s->lineno, s->col_offset);
    if (is_async) {
        comp_emit(c, OP_BEFORE_ASYNC_WITH, 0);
        comp_await_tos(c, 1);
    } else {
        comp_emit(c, OP_BEFORE_WITH, 0);
    }
    comp_emit_jump(c, OP_SETUP_WITH, final);
    comp_bind(c, block);
    push_fblock(c, is_async ? FB_ASYNC_WITH : FB_WITH, block, final, s);
    if (item->optional_vars) comp_store_target(c, item->optional_vars);
    else comp_emit(c, OP_POP_TOP, 0);
    if (pos + 1 == s->v.With.items.count) comp_stmts(c, &s->v.With.body);
    else comp_with_items(c, s, pos + 1);
    pop_fblock(c);
    comp_emit(c, OP_POP_BLOCK, 0);
    comp_set_loc(c, s->lineno, s->col_offset);
    call_exit_with_nones(c);
    if (is_async) comp_await_tos(c, 2);
    comp_emit(c, OP_POP_TOP, 0);
    comp_emit_jump(c, OP_JUMP, exit);
    /* exceptional exit: __exit__(type, value, tb); a true result suppresses the exception */
    comp_bind(c, final);
    comp_emit_jump(c, OP_SETUP_CLEANUP, cleanup);
    comp_emit(c, OP_PUSH_EXC_INFO, 0);
    comp_emit(c, OP_WITH_EXCEPT_START, 0);
    if (is_async) comp_await_tos(c, 2);
    comp_emit_jump(c, OP_POP_JUMP_IF_TRUE, suppress);
    comp_emit(c, OP_RERAISE, 0);
    comp_bind(c, suppress);
    comp_emit(c, OP_POP_TOP, 0);
    comp_emit(c, OP_POP_BLOCK, 0);
    comp_emit(c, OP_POP_EXCEPT, 0);
    comp_emit(c, OP_POP_TOP, 0);
    comp_emit_jump(c, OP_JUMP, exit);
    comp_bind(c, cleanup);
    comp_emit(c, OP_SWAP, 2);
    comp_emit(c, OP_POP_EXCEPT, 0);
    comp_emit(c, OP_RERAISE, 0);
    comp_bind(c, exit);
}

static void comp_assert(Compiler *c, const AstStmt *s) {
    if (c->optimize >= 1) { /* python -O: asserts are not compiled */
        comp_emit(c, OP_NOP, 0);
        return;
    }
    Label end = comp_label(c);
    comp_jump_if(c, s->v.Assert.test, end, true);
    comp_set_loc(c, s->lineno, s->col_offset);
    if (s->v.Assert.msg) {
        comp_emit(c, OP_PUSH_NULL, 0);
        comp_emit(c, OP_LOAD_ASSERTION_ERROR, 0);
        comp_expr(c, s->v.Assert.msg);
        comp_set_loc(c, s->lineno, s->col_offset);
        comp_emit(c, OP_CALL, 1);
    } else {
        comp_emit(c, OP_LOAD_ASSERTION_ERROR, 0);
    }
    comp_emit(c, OP_RAISE_VARARGS, 1);
    comp_bind(c, end);
}

static void comp_import(Compiler *c, const AstStmt *s) {
    const AstAliasSeq *names = &s->v.Import.names;
    for (size_t i = 0; i < names->count; i++) {
        const AstAlias *a = names->items[i];
        comp_set_loc(c, a->lineno, a->col_offset);
        comp_emit(c, OP_LOAD_CONST, comp_const(c, val_int(0)));
        comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
        comp_emit(c, OP_IMPORT_NAME, comp_name_index(c, a->name));
        if (a->asname) {
            /* import a.b.c as d: walk down from the top package with IMPORT_FROM */
            const char *dot = strchr(a->name, '.');
            while (dot) {
                const char *next = strchr(dot + 1, '.');
                size_t n = next ? (size_t)(next - dot - 1) : strlen(dot + 1);
                char part[256];
                snprintf(part, sizeof part, "%.*s", (int)n, dot + 1);
                comp_emit(c, OP_IMPORT_FROM, name_index_raw(c, part));   /* CPython does not mangle these */
                comp_emit(c, OP_SWAP, 2);
                comp_emit(c, OP_POP_TOP, 0);
                dot = next;
            }
            comp_nameop(c, a->asname, AST_STORE);
        } else {
            char top[256];
            const char *dot = strchr(a->name, '.');
            snprintf(top, sizeof top, "%.*s", dot ? (int)(dot - a->name) : (int)strlen(a->name), a->name);
            comp_nameop(c, top, AST_STORE);
        }
    }
}

static void comp_import_from(Compiler *c, const AstStmt *s) {
    const AstAliasSeq *names = &s->v.ImportFrom.names;
    VM *vm = c->vm;
    TupleObj *fromlist = tuple_new(vm, (int64_t)names->count);
    if (!fromlist) comp_fail(c);
    vm_push_root(vm, val_obj(fromlist));
    for (size_t i = 0; i < names->count; i++) {
        StrObj *n = vm_intern_str(vm, names->items[i]->name);
        if (!n) comp_fail(c);
        fromlist->items[i] = val_obj(n);
    }
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_int(s->v.ImportFrom.level)));
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_obj(fromlist)));
    vm_pop_root(vm);
    comp_emit(c, OP_IMPORT_NAME, comp_name_index(c, s->v.ImportFrom.module ? s->v.ImportFrom.module : ""));
    for (size_t i = 0; i < names->count; i++) {
        const AstAlias *a = names->items[i];
        if (strcmp(a->name, "*") == 0) {
            if (c->u->kind == SYM_BLOCK_FUNCTION)
                comp_error(c, s->lineno, s->col_offset, "import * only allowed at module level");
            comp_emit(c, OP_IMPORT_STAR, 0);
            return;
        }
        comp_set_loc(c, a->lineno, a->col_offset);
        comp_emit(c, OP_IMPORT_FROM, comp_name_index(c, a->name));
        comp_nameop(c, a->asname ? a->asname : a->name, AST_STORE);
    }
    comp_emit(c, OP_POP_TOP, 0);
}

static const int aug_binop[] = {
    [AST_ADD] = BINOP_ADD, [AST_SUB] = BINOP_SUBTRACT, [AST_MULT] = BINOP_MULTIPLY, [AST_MAT_MULT] = BINOP_MATMUL,
    [AST_DIV] = BINOP_TRUE_DIVIDE, [AST_MOD] = BINOP_REMAINDER, [AST_POW] = BINOP_POWER,
    [AST_LSHIFT] = BINOP_LSHIFT, [AST_RSHIFT] = BINOP_RSHIFT, [AST_BIT_OR] = BINOP_OR,
    [AST_BIT_XOR] = BINOP_XOR, [AST_BIT_AND] = BINOP_AND, [AST_FLOOR_DIV] = BINOP_FLOOR_DIVIDE,
};

static void comp_aug_assign(Compiler *c, const AstStmt *s) {
    const AstExpr *t = s->v.AugAssign.target;
    uint32_t op = (uint32_t)(aug_binop[s->v.AugAssign.op] + BINOP_INPLACE);
    switch (t->kind) {
    case AST_EXPR_NAME:
        comp_nameop(c, t->v.Name.id, AST_LOAD);
        comp_expr(c, s->v.AugAssign.value);
        comp_set_loc(c, s->lineno, s->col_offset);
        comp_emit(c, OP_BINARY_OP, op);
        comp_nameop(c, t->v.Name.id, AST_STORE);
        break;
    case AST_EXPR_ATTRIBUTE: {
        comp_expr(c, t->v.Attribute.value);
        comp_emit(c, OP_COPY, 1);
        comp_set_loc(c, t->lineno, t->col_offset);
        uint32_t name = comp_name_index(c, t->v.Attribute.attr);
        comp_emit(c, OP_LOAD_ATTR, name);
        comp_expr(c, s->v.AugAssign.value);
        comp_set_loc(c, s->lineno, s->col_offset);
        comp_emit(c, OP_BINARY_OP, op);
        comp_emit(c, OP_SWAP, 2);
        comp_emit(c, OP_STORE_ATTR, name);
        break;
    }
    case AST_EXPR_SUBSCRIPT:
        comp_expr(c, t->v.Subscript.value);
        comp_expr(c, t->v.Subscript.slice);
        comp_emit(c, OP_COPY, 2);
        comp_emit(c, OP_COPY, 2);
        comp_set_loc(c, t->lineno, t->col_offset);
        comp_emit(c, OP_BINARY_SUBSCR, 0);
        comp_expr(c, s->v.AugAssign.value);
        comp_set_loc(c, s->lineno, s->col_offset);
        comp_emit(c, OP_BINARY_OP, op);
        comp_emit(c, OP_SWAP, 3);
        comp_emit(c, OP_SWAP, 2);
        comp_emit(c, OP_STORE_SUBSCR, 0);
        break;
    default:
        comp_error(c, t->lineno, t->col_offset, "illegal expression for augmented assignment");
    }
}

/* The value part of an annotated target with no value is still evaluated (and dropped), as
 * CPython's check_ann_expr/check_ann_subscr do: `o.x: int` evaluates `o`. */
static void comp_ann_check_expr(Compiler *c, const AstExpr *e) {
    comp_expr(c, e);
    comp_emit(c, OP_POP_TOP, 0);
}

static void comp_ann_check_subscr(Compiler *c, const AstExpr *e) {
    if (e->kind == AST_EXPR_SLICE) {
        if (e->v.Slice.lower) comp_ann_check_expr(c, e->v.Slice.lower);
        if (e->v.Slice.upper) comp_ann_check_expr(c, e->v.Slice.upper);
        if (e->v.Slice.step) comp_ann_check_expr(c, e->v.Slice.step);
    } else if (e->kind == AST_EXPR_TUPLE) {
        for (size_t i = 0; i < e->v.Tuple.elts.count; i++) comp_ann_check_subscr(c, e->v.Tuple.elts.items[i]);
    } else {
        comp_ann_check_expr(c, e);
    }
}

static void comp_ann_assign(Compiler *c, const AstStmt *s) {
    const AstExpr *t = s->v.AnnAssign.target;
    bool outer = c->u->kind == SYM_BLOCK_MODULE || c->u->kind == SYM_BLOCK_CLASS;
    if (s->v.AnnAssign.value) {
        comp_expr(c, s->v.AnnAssign.value);
        comp_store_target(c, t);
    }
    switch (t->kind) {
    case AST_EXPR_NAME:
        /* module and class scopes record simple annotations in __annotations__; function-local
         * annotations are not evaluated, as in CPython */
        if (s->v.AnnAssign.simple && outer) {
            comp_annotation(c, s->v.AnnAssign.annotation);
            comp_emit(c, OP_LOAD_NAME, comp_name_index(c, "__annotations__"));
            comp_emit(c, OP_LOAD_CONST, const_str(c, comp_mangle(c, t->v.Name.id)));
            comp_emit(c, OP_STORE_SUBSCR, 0);
        }
        break;
    case AST_EXPR_ATTRIBUTE:
        if (!s->v.AnnAssign.value) comp_ann_check_expr(c, t->v.Attribute.value);
        break;
    case AST_EXPR_SUBSCRIPT:
        if (!s->v.AnnAssign.value) {
            comp_ann_check_expr(c, t->v.Subscript.value);
            comp_ann_check_subscr(c, t->v.Subscript.slice);
        }
        break;
    default: break;
    }
    /* the annotation of a complex target is evaluated last, and only in a module or class
     * without `from __future__ import annotations` */
    if (!s->v.AnnAssign.simple && !c->future_annotations && outer)
        comp_ann_check_expr(c, s->v.AnnAssign.annotation);
}

void comp_stmt(Compiler *c, const AstStmt *s) {
    comp_set_loc(c, s->lineno, s->col_offset);
    switch (s->kind) {
    case AST_STMT_FUNCTION_DEF:
    case AST_STMT_ASYNC_FUNCTION_DEF: comp_function_def(c, s); break;
    case AST_STMT_CLASS_DEF: comp_class_def(c, s); break;
    case AST_STMT_RETURN: comp_return(c, s); break;
    case AST_STMT_DELETE:
        for (size_t i = 0; i < s->v.Delete.targets.count; i++) comp_delete_target(c, s->v.Delete.targets.items[i]);
        break;
    case AST_STMT_ASSIGN: {
        comp_expr(c, s->v.Assign.value);
        size_t n = s->v.Assign.targets.count;
        for (size_t i = 0; i < n; i++) {
            if (i + 1 < n) comp_emit(c, OP_COPY, 1);
            comp_store_target(c, s->v.Assign.targets.items[i]);
        }
        break;
    }
    case AST_STMT_AUG_ASSIGN: comp_aug_assign(c, s); break;
    case AST_STMT_ANN_ASSIGN: comp_ann_assign(c, s); break;
    case AST_STMT_FOR: comp_for(c, s); break;
    case AST_STMT_ASYNC_FOR: comp_async_for(c, s); break;
    case AST_STMT_WHILE: comp_while(c, s); break;
    case AST_STMT_IF: comp_if(c, s); break;
    case AST_STMT_WITH:
    case AST_STMT_ASYNC_WITH: comp_with_items(c, s, 0); break;
    case AST_STMT_RAISE: comp_raise(c, s); break;
    case AST_STMT_TRY:
        if (s->v.Try.finalbody.count) comp_try_finally(c, s);
        else comp_try_except(c, s);
        break;
    case AST_STMT_ASSERT: comp_assert(c, s); break;
    case AST_STMT_MATCH: comp_match(c, s); break;
    case AST_STMT_IMPORT: comp_import(c, s); break;
    case AST_STMT_IMPORT_FROM: comp_import_from(c, s); break;
    case AST_STMT_GLOBAL:
    case AST_STMT_NONLOCAL:
    case AST_STMT_PASS: comp_emit(c, OP_NOP, 0); break;
    case AST_STMT_EXPR: {
        const AstExpr *v = s->v.Expr.value;
        if (c->interactive && !c->u->parent) { /* 'single' mode shows the value (sys.displayhook) */
            comp_expr(c, v);
            comp_emit(c, OP_PRINT_EXPR, 0);
            break;
        }
        /* constants as statements do nothing, also those CPython's optimizer folds (1 + 2j) */
        if (v->kind == AST_EXPR_CONSTANT ||
            ((v->kind == AST_EXPR_BIN_OP || v->kind == AST_EXPR_UNARY_OP || v->kind == AST_EXPR_TUPLE) &&
             !val_is_null(comp_constant_value(c, v)))) {
            comp_emit(c, OP_NOP, 0);
            break;
        }
        comp_expr(c, v);
        comp_emit(c, OP_POP_TOP, 0);
        break;
    }
    case AST_STMT_BREAK: comp_break_continue(c, s, true); break;
    case AST_STMT_CONTINUE: comp_break_continue(c, s, false); break;
    case AST_STMT__COUNT: EM_UNREACHABLE();
    }
}

void comp_stmts(Compiler *c, const AstStmtSeq *seq) {
    for (size_t i = 0; i < seq->count; i++) comp_stmt(c, seq->items[i]);
}

/* ---- the module ----------------------------------------------------------------------------- */

static CodeObj *compile_module(Compiler *c, const AstModule *mod) {
    enter_unit(c, NULL, "<module>", "<module>", 1);
    if (mod->kind == AST_MOD_EXPRESSION) { /* 'eval': the value of one expression */
        comp_expr(c, mod->expr);
        comp_emit(c, OP_RETURN_VALUE, 0);
        return exit_unit(c);
    }
    const AstStmtSeq *body = &mod->body;
    bool has_ann = find_ann(body);
    if (has_ann) comp_emit(c, OP_SETUP_ANNOTATIONS, 0);
    size_t start = 0;
    if (mod->kind == AST_MOD_MODULE && body->count && comp_is_docstring(body->items[0])) {
        comp_set_loc(c, body->items[0]->lineno, body->items[0]->col_offset);
        comp_emit(c, OP_LOAD_CONST, comp_const(c, docstring_value(c, body->items[0])));
        comp_emit(c, OP_STORE_NAME, comp_name_index(c, "__doc__"));
        start = 1;
    }
    c->interactive = mod->kind == AST_MOD_INTERACTIVE;
    for (size_t i = start; i < body->count; i++) comp_stmt(c, body->items[i]);
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
    comp_emit(c, OP_RETURN_VALUE, 0);
    return exit_unit(c);
}

/* The code of a checked module; NULL when generation failed (error raised). */
static CodeObj *generate(Compiler *c, const AstModule *mod) {
    if (setjmp(c->fail) == 0) return compile_module(c, mod);
    abandon_units(c);
    return NULL;
}

/* Symbol tables and code for a parsed (or converted) module; errors become SyntaxError
 * exceptions.  errs may already hold the parser's errors.  The error list is ordered by
 * CPython's phases, so a symbol-table error outranks the compile-phase checks the parser
 * made.  src (NULL for a tree built from objects) fills the errors' source lines. */
static CodeObj *comp_tree(VM *vm, AstModule *mod, AstArena *arena, const char *src, size_t len, const char *filename,
                          const CompOptions *co_opts, ParseErrorList *errs, char **diag) {
    CodeObj *co = NULL;
    SymTable *st = NULL;
    Compiler c = {.vm = vm, .filename = filename, .code_flags = co_opts->code_flags, .src = src, .src_len = len,
                  .optimize = co_opts->optimize > 0 ? co_opts->optimize : 0};
    bool future_annotations = mod && (sym_future_annotations(mod) || (co_opts->cf_flags & CO_FUTURE_ANNOTATIONS));
    if (mod) st = sym_build_ex(mod, future_annotations, errs);
    if (errs->count || !st) {
        /* errors after the parser's read their line from the file named, as CPython's do (and
         * have none when there is no such file) */
        for (size_t i = 0; i < errs->count; i++)
            if (errs->items[i].phase > PARSE_PHASE_PARSER) {
                free(errs->items[i].text);
                errs->items[i].text = NULL;
            }
        parse_errors_fill_text_from_file(errs, filename, co_opts->mode == PARSE_MODE_EXEC);
        if (errs->count) {
            raise_first_error(vm, errs, filename);
            if (diag) *diag = parse_format_error(&errs->items[0], filename);
        } else {
            vm_no_memory(vm);
        }
        goto done;
    }
    c.st = st;
    c.arena = arena;
    c.future_annotations = future_annotations;
    /* as CPython, the module's __future__ flags mark every code object it compiles */
    c.code_flags |= (co_opts->cf_flags & COMP_CF_FUTURE_MASK) | (future_annotations ? CO_FUTURE_ANNOTATIONS : 0);
    co = generate(&c, mod);
    if (diag) *diag = c.diag;
    else free(c.diag);
done:
    sym_free(st);
    return co;
}

/* Parse, then compile the tree. */
static CodeObj *comp_run(VM *vm, const char *src, size_t len, const char *filename, const CompOptions *co_opts,
                         char **diag) {
    if (diag) *diag = NULL;
    AstArena *arena = ast_arena_new();
    if (!arena) {
        vm_no_memory(vm);
        return NULL;
    }
    ParseErrorList errs;
    parse_errors_init(&errs);
    ParseOptions opts = {.filename = filename,
                         .mode = (ParseMode)co_opts->mode,
                         .dont_imply_dedent = (co_opts->cf_flags & COMP_CF_DONT_IMPLY_DEDENT) != 0,
                         .allow_incomplete = (co_opts->cf_flags & COMP_CF_ALLOW_INCOMPLETE_INPUT) != 0};
    AstModule *mod = NULL;
    parse_source(src, len, &opts, arena, &mod, &errs);
    CodeObj *co = comp_tree(vm, mod, arena, src, len, filename, co_opts, &errs, diag);
    parse_errors_fini(&errs);
    ast_arena_free(arena);
    return co;
}

AstModule *comp_parse_tree(VM *vm, const char *src, size_t len, const char *filename, int mode, uint32_t cf_flags,
                           AstArena *arena) {
    ParseErrorList errs;
    parse_errors_init(&errs);
    ParseOptions opts = {.filename = filename,
                         .mode = (ParseMode)mode,
                         .ast_only = true,
                         .dont_imply_dedent = (cf_flags & COMP_CF_DONT_IMPLY_DEDENT) != 0,
                         .allow_incomplete = (cf_flags & COMP_CF_ALLOW_INCOMPLETE_INPUT) != 0};
    AstModule *mod = NULL;
    parse_source(src, len, &opts, arena, &mod, &errs);
    if (errs.count || !mod) {
        parse_errors_fill_text_from_file(&errs, filename, mode == PARSE_MODE_EXEC);
        if (errs.count) {
            raise_first_error(vm, &errs, filename);
        } else {
            vm_no_memory(vm);
        }
        mod = NULL;
    }
    parse_errors_fini(&errs);
    return mod;
}

CodeObj *comp_compile_tree(VM *vm, AstModule *mod, AstArena *arena, const char *filename, const CompOptions *opts) {
    ParseErrorList errs;
    parse_errors_init(&errs);
    /* the checks the parser runs after parsing source (__future__ placement, 'return' outside
     * function, ...), which CPython's compiler makes */
    parse_check_module(mod, NULL, &errs);
    CodeObj *co = comp_tree(vm, mod, arena, NULL, 0, filename, opts, &errs, NULL);
    parse_errors_fini(&errs);
    return co;
}

CodeObj *comp_compile_module(VM *vm, const char *src, size_t len, const char *filename, uint32_t code_flags,
                             char **diag) {
    CompOptions opts = {.mode = PARSE_MODE_EXEC, .code_flags = code_flags};
    return comp_run(vm, src, len, filename, &opts, diag);
}

CodeObj *comp_compile(VM *vm, const char *src, size_t len, const char *filename, const CompOptions *opts,
                      char **diag) {
    return comp_run(vm, src, len, filename, opts, diag);
}

/* ---- hooks for compile_expr.c ------------------------------------------------------------------- */

uint32_t comp_push_defaults_for(Compiler *c, const AstArguments *a) { return push_defaults(c, a, NULL, false); }

void comp_enter_comprehension(Compiler *c, const void *node, const char *name, int line) {
    char qual[1024];
    snprintf(qual, sizeof qual, "%s", comp_qualname(c, name));
    enter_unit(c, node, name, qual, line);
    c->u->b.argcount = 1;   /* ".0", the iterator over the outermost iterable */
    unit_prologue(c);
}

CodeObj *comp_exit_comprehension(Compiler *c) { return exit_unit(c); }
