/* parse_check.c — post-parse checks of future.c and compile.c (see parse_check.h). */
#include "src/frontend/parse_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kind of compiler unit being checked (CPython's u_scope_type). */
typedef enum CheckScope { CS_MODULE, CS_CLASS, CS_FUNCTION, CS_ASYNC_FUNCTION, CS_LAMBDA, CS_COMPREHENSION } CheckScope;

typedef struct Checker {
    const Lexer *lx;
    ParseErrorList *errors;
    bool in_function;     /* current scope is a function, lambda or comprehension */
    CheckScope scope;
    bool async_generator; /* the current function is an async def containing yield */
    bool module_or_class; /* annotations are evaluated here */
    int loop_depth;       /* enclosing loops in the current function */
    bool future_annotations;
    int future_lineno;    /* last line of the leading __future__ imports */
} Checker;

typedef struct Loc {
    int lineno, col_offset, end_lineno, end_col_offset;
} Loc;

#define LOC(n) ((Loc){(n)->lineno, (n)->col_offset, (n)->end_lineno, (n)->end_col_offset})

static void error_at(Checker *c, ParsePhase phase, Loc l, int col, int end_lineno, int end_col,
                     const char *msg) {
    size_t len = 0;
    const char *line = lex_line_nl(c->lx, l.lineno, &len);
    parse_errors_add(c->errors, PARSE_SYNTAX_ERROR, phase, msg, l.lineno, col, end_lineno, end_col,
                     line, len);
}

/* compiler_error: columns are byte offsets + 1, as compile.c reports them. */
static void compiler_error(Checker *c, Loc l, const char *msg) {
    error_at(c, PARSE_PHASE_COMPILER, l, l.col_offset + 1, l.end_lineno, l.end_col_offset + 1, msg);
}

static void check_expr(Checker *c, const AstExpr *e);
static void check_stmts(Checker *c, AstStmtSeq body);

static void check_exprs(Checker *c, AstExprSeq seq) {
    for (size_t i = 0; i < seq.count; i++)
        if (seq.items[i]) check_expr(c, seq.items[i]);
}

/* forbidden_name */
static bool forbidden(Checker *c, const char *name, AstExprContext ctx, Loc l) {
    if (!name || strcmp(name, "__debug__") != 0 || ctx == AST_LOAD) return false;
    compiler_error(c, l, ctx == AST_STORE ? "cannot assign to __debug__" : "cannot delete __debug__");
    return true;
}

static void check_debug_args(Checker *c, const AstArguments *a, Loc l) {
    const AstArgSeq *seqs[3] = {&a->args, &a->posonlyargs, &a->kwonlyargs};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < seqs[k]->count; i++)
            if (forbidden(c, seqs[k]->items[i]->arg, AST_STORE, l)) return;
    if (a->vararg && forbidden(c, a->vararg->arg, AST_STORE, l)) return;
    if (a->kwarg) forbidden(c, a->kwarg->arg, AST_STORE, l);
}

static void check_defaults(Checker *c, const AstArguments *a) {
    check_exprs(c, a->defaults);
    check_exprs(c, a->kw_defaults);
}

static void check_annotations(Checker *c, const AstArguments *a, const AstExpr *returns) {
    if (c->future_annotations) return;
    const AstArgSeq *seqs[2] = {&a->args, &a->posonlyargs};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < seqs[k]->count; i++)
            if (seqs[k]->items[i]->annotation) check_expr(c, seqs[k]->items[i]->annotation);
    if (a->vararg && a->vararg->annotation) check_expr(c, a->vararg->annotation);
    for (size_t i = 0; i < a->kwonlyargs.count; i++)
        if (a->kwonlyargs.items[i]->annotation) check_expr(c, a->kwonlyargs.items[i]->annotation);
    if (a->kwarg && a->kwarg->annotation) check_expr(c, a->kwarg->annotation);
    if (returns) check_expr(c, returns);
}

/* Runs fn over a nested function scope. */
/* ---- what a scope contains (its own code, not nested functions or classes) ---- */

enum { SCAN_YIELD = 1, SCAN_AWAIT = 2 };

static int scan_expr(const AstExpr *e);
static int scan_stmts(AstStmtSeq body);

static int scan_exprs(AstExprSeq seq) {
    int r = 0;
    for (size_t i = 0; i < seq.count; i++)
        if (seq.items[i]) r |= scan_expr(seq.items[i]);
    return r;
}

static int scan_opt(const AstExpr *e) { return e ? scan_expr(e) : 0; }

static int scan_args(const AstArguments *a) { return scan_exprs(a->defaults) | scan_exprs(a->kw_defaults); }

/* A comprehension: its outermost iterable runs in the enclosing scope; a list, set or dict
 * comprehension that awaits makes the enclosing scope await too (symtable.c's propagation
 * of ste_coroutine); a generator expression stays an async generator of its own. */
static int scan_comprehension(const AstExpr *e, AstComprehensionSeq gens, const AstExpr *elt, const AstExpr *val) {
    int outer = scan_expr(gens.items[0]->iter), inner = scan_opt(elt) | scan_opt(val);
    for (size_t i = 0; i < gens.count; i++) {
        const AstComprehension *g = gens.items[i];
        if (g->is_async) inner |= SCAN_AWAIT;
        if (i > 0) inner |= scan_expr(g->iter);
        inner |= scan_expr(g->target) | scan_exprs(g->ifs);
    }
    return outer | (e->kind != AST_EXPR_GENERATOR_EXP ? inner & SCAN_AWAIT : 0);
}

static int scan_expr(const AstExpr *e) {
    switch (e->kind) {
    case AST_EXPR_BOOL_OP: return scan_exprs(e->v.BoolOp.values);
    case AST_EXPR_BIN_OP: return scan_expr(e->v.BinOp.left) | scan_expr(e->v.BinOp.right);
    case AST_EXPR_UNARY_OP: return scan_expr(e->v.UnaryOp.operand);
    case AST_EXPR_LAMBDA: return scan_args(e->v.Lambda.args);
    case AST_EXPR_IF_EXP:
        return scan_expr(e->v.IfExp.test) | scan_expr(e->v.IfExp.body) | scan_expr(e->v.IfExp.orelse);
    case AST_EXPR_DICT: return scan_exprs(e->v.Dict.keys) | scan_exprs(e->v.Dict.values);
    case AST_EXPR_SET: return scan_exprs(e->v.Set.elts);
    case AST_EXPR_LIST_COMP: return scan_comprehension(e, e->v.ListComp.generators, e->v.ListComp.elt, NULL);
    case AST_EXPR_SET_COMP: return scan_comprehension(e, e->v.SetComp.generators, e->v.SetComp.elt, NULL);
    case AST_EXPR_DICT_COMP:
        return scan_comprehension(e, e->v.DictComp.generators, e->v.DictComp.key, e->v.DictComp.value);
    case AST_EXPR_GENERATOR_EXP:
        return scan_comprehension(e, e->v.GeneratorExp.generators, e->v.GeneratorExp.elt, NULL);
    case AST_EXPR_AWAIT: return SCAN_AWAIT | scan_expr(e->v.Await.value);
    case AST_EXPR_YIELD: return SCAN_YIELD | scan_opt(e->v.Yield.value);
    case AST_EXPR_YIELD_FROM: return SCAN_YIELD | scan_expr(e->v.YieldFrom.value);
    case AST_EXPR_COMPARE: return scan_expr(e->v.Compare.left) | scan_exprs(e->v.Compare.comparators);
    case AST_EXPR_CALL: {
        int r = scan_expr(e->v.Call.func) | scan_exprs(e->v.Call.args);
        for (size_t i = 0; i < e->v.Call.keywords.count; i++) r |= scan_expr(e->v.Call.keywords.items[i]->value);
        return r;
    }
    case AST_EXPR_FORMATTED_VALUE: return scan_expr(e->v.FormattedValue.value) | scan_opt(e->v.FormattedValue.format_spec);
    case AST_EXPR_JOINED_STR: return scan_exprs(e->v.JoinedStr.values);
    case AST_EXPR_ATTRIBUTE: return scan_expr(e->v.Attribute.value);
    case AST_EXPR_SUBSCRIPT: return scan_expr(e->v.Subscript.value) | scan_expr(e->v.Subscript.slice);
    case AST_EXPR_STARRED: return scan_expr(e->v.Starred.value);
    case AST_EXPR_LIST: return scan_exprs(e->v.List.elts);
    case AST_EXPR_TUPLE: return scan_exprs(e->v.Tuple.elts);
    case AST_EXPR_SLICE: return scan_opt(e->v.Slice.lower) | scan_opt(e->v.Slice.upper) | scan_opt(e->v.Slice.step);
    case AST_EXPR_NAMED_EXPR: return scan_expr(e->v.NamedExpr.value);
    case AST_EXPR_CONSTANT:
    case AST_EXPR_NAME:
    case AST_EXPR__COUNT: return 0;
    }
    return 0;
}

static int scan_stmt(const AstStmt *s) {
    switch (s->kind) {
    case AST_STMT_FUNCTION_DEF:
    case AST_STMT_ASYNC_FUNCTION_DEF:
        return scan_exprs(s->v.FunctionDef.decorator_list) | scan_args(s->v.FunctionDef.args);
    case AST_STMT_CLASS_DEF: {
        int r = scan_exprs(s->v.ClassDef.decorator_list) | scan_exprs(s->v.ClassDef.bases);
        for (size_t i = 0; i < s->v.ClassDef.keywords.count; i++) r |= scan_expr(s->v.ClassDef.keywords.items[i]->value);
        return r;
    }
    case AST_STMT_RETURN: return scan_opt(s->v.Return.value);
    case AST_STMT_DELETE: return scan_exprs(s->v.Delete.targets);
    case AST_STMT_ASSIGN: return scan_exprs(s->v.Assign.targets) | scan_expr(s->v.Assign.value);
    case AST_STMT_AUG_ASSIGN: return scan_expr(s->v.AugAssign.target) | scan_expr(s->v.AugAssign.value);
    case AST_STMT_ANN_ASSIGN: return scan_expr(s->v.AnnAssign.target) | scan_opt(s->v.AnnAssign.value);
    case AST_STMT_FOR:
    case AST_STMT_ASYNC_FOR:
        return scan_expr(s->v.For.target) | scan_expr(s->v.For.iter) | scan_stmts(s->v.For.body) |
               scan_stmts(s->v.For.orelse) | (s->kind == AST_STMT_ASYNC_FOR ? SCAN_AWAIT : 0);
    case AST_STMT_WHILE:
        return scan_expr(s->v.While.test) | scan_stmts(s->v.While.body) | scan_stmts(s->v.While.orelse);
    case AST_STMT_IF: return scan_expr(s->v.If.test) | scan_stmts(s->v.If.body) | scan_stmts(s->v.If.orelse);
    case AST_STMT_WITH:
    case AST_STMT_ASYNC_WITH: {
        int r = scan_stmts(s->v.With.body) | (s->kind == AST_STMT_ASYNC_WITH ? SCAN_AWAIT : 0);
        for (size_t i = 0; i < s->v.With.items.count; i++)
            r |= scan_expr(s->v.With.items.items[i]->context_expr) | scan_opt(s->v.With.items.items[i]->optional_vars);
        return r;
    }
    case AST_STMT_RAISE: return scan_opt(s->v.Raise.exc) | scan_opt(s->v.Raise.cause);
    case AST_STMT_TRY: {
        int r = scan_stmts(s->v.Try.body) | scan_stmts(s->v.Try.orelse) | scan_stmts(s->v.Try.finalbody);
        for (size_t i = 0; i < s->v.Try.handlers.count; i++)
            r |= scan_opt(s->v.Try.handlers.items[i]->type) | scan_stmts(s->v.Try.handlers.items[i]->body);
        return r;
    }
    case AST_STMT_ASSERT: return scan_expr(s->v.Assert.test) | scan_opt(s->v.Assert.msg);
    case AST_STMT_EXPR: return scan_expr(s->v.Expr.value);
    case AST_STMT_MATCH: {
        int r = scan_expr(s->v.Match.subject);
        for (size_t i = 0; i < s->v.Match.cases.count; i++)
            r |= scan_opt(s->v.Match.cases.items[i]->guard) | scan_stmts(s->v.Match.cases.items[i]->body);
        return r;
    }
    default: return 0;
    }
}

static int scan_stmts(AstStmtSeq body) {
    int r = 0;
    for (size_t i = 0; i < body.count; i++) r |= scan_stmt(body.items[i]);
    return r;
}

/* Runs fn over a nested scope of the given kind. */
static void in_scope(Checker *c, CheckScope scope, bool async_generator, void (*fn)(Checker *, const void *),
                     const void *arg) {
    Checker saved = *c;
    c->in_function = true;
    c->scope = scope;
    c->async_generator = async_generator;
    c->module_or_class = false;
    c->loop_depth = 0;
    fn(c, arg);
    c->in_function = saved.in_function;
    c->scope = saved.scope;
    c->async_generator = saved.async_generator;
    c->module_or_class = saved.module_or_class;
    c->loop_depth = saved.loop_depth;
}

static void in_function_scope(Checker *c, void (*fn)(Checker *, const void *), const void *arg) {
    in_scope(c, CS_LAMBDA, false, fn, arg);
}

static void function_body(Checker *c, const void *s) {
    check_stmts(c, ((const AstStmt *)s)->v.FunctionDef.body);
}

static void lambda_body(Checker *c, const void *e) { check_expr(c, ((const AstExpr *)e)->v.Lambda.body); }

/* validate_keywords (at reports __debug__ at the call, as compile.c does) */
static bool check_keywords(Checker *c, AstKeywordSeq kws, Loc at) {
    for (size_t i = 0; i < kws.count; i++) {
        const AstKeyword *k = kws.items[i];
        if (!k->arg) continue;
        if (forbidden(c, k->arg, AST_STORE, at)) return false;
        for (size_t j = i + 1; j < kws.count; j++) {
            const AstKeyword *o = kws.items[j];
            if (o->arg && strcmp(o->arg, k->arg) == 0) {
                char msg[300];
                snprintf(msg, sizeof msg, "keyword argument repeated: %s", k->arg);
                compiler_error(c, LOC(o), msg);
                return false;
            }
        }
    }
    return true;
}

static void check_call_args(Checker *c, AstExprSeq args, AstKeywordSeq kws, Loc at) {
    if (!check_keywords(c, kws, at)) return;
    for (size_t i = 0; i < args.count; i++) {
        const AstExpr *a = args.items[i];
        check_expr(c, a->kind == AST_EXPR_STARRED ? a->v.Starred.value : a);
    }
    for (size_t i = 0; i < kws.count; i++) check_expr(c, kws.items[i]->value);
}

/* Elements of a display or target tuple/list: starred elements are fine there. */
static void check_elts(Checker *c, const AstExpr *e, AstExprSeq elts, AstExprContext ctx) {
    if (ctx == AST_STORE) { /* unpack_helper */
        bool seen = false;
        for (size_t i = 0; i < elts.count; i++) {
            if (elts.items[i]->kind != AST_EXPR_STARRED) continue;
            if (seen) {
                compiler_error(c, LOC(e), "multiple starred expressions in assignment");
                return;
            }
            if (i >= (1 << 8)) {
                compiler_error(c, LOC(e), "too many expressions in star-unpacking assignment");
                return;
            }
            seen = true;
        }
    }
    for (size_t i = 0; i < elts.count; i++) {
        const AstExpr *x = elts.items[i];
        check_expr(c, x->kind == AST_EXPR_STARRED ? x->v.Starred.value : x);
    }
}

typedef struct CompArgs {
    AstComprehensionSeq gens;
    const AstExpr *elt, *value;
} CompArgs;

static void comprehension_body(Checker *c, const void *arg) {
    const CompArgs *ca = arg;
    for (size_t i = 0; i < ca->gens.count; i++) {
        const AstComprehension *g = ca->gens.items[i];
        if (i > 0) check_expr(c, g->iter);
        check_expr(c, g->target);
        check_exprs(c, g->ifs);
    }
    check_expr(c, ca->elt);
    if (ca->value) check_expr(c, ca->value);
}

static void check_comprehension(Checker *c, const AstExpr *e, AstComprehensionSeq gens, const AstExpr *elt,
                                const AstExpr *value) {
    check_expr(c, gens.items[0]->iter); /* the outermost iterable runs in the enclosing scope */
    if (e->kind != AST_EXPR_GENERATOR_EXP && c->scope != CS_ASYNC_FUNCTION && c->scope != CS_COMPREHENSION) {
        /* a list/set/dict comprehension that awaits is a coroutine: only async code awaits it */
        int inner = scan_opt(elt) | scan_opt(value);
        for (size_t i = 0; i < gens.count; i++)
            inner |= (gens.items[i]->is_async ? SCAN_AWAIT : 0) | (i ? scan_expr(gens.items[i]->iter) : 0) |
                     scan_exprs(gens.items[i]->ifs);
        if (inner & SCAN_AWAIT) {
            compiler_error(c, LOC(e), "asynchronous comprehension outside of an asynchronous function");
            return;
        }
    }
    CompArgs ca = {gens, elt, value};
    in_scope(c, CS_COMPREHENSION, false, comprehension_body, &ca);
}

static void check_expr(Checker *c, const AstExpr *e) {
    switch (e->kind) {
    case AST_EXPR_BOOL_OP: check_exprs(c, e->v.BoolOp.values); break;
    case AST_EXPR_BIN_OP:
        check_expr(c, e->v.BinOp.left);
        check_expr(c, e->v.BinOp.right);
        break;
    case AST_EXPR_UNARY_OP: check_expr(c, e->v.UnaryOp.operand); break;
    case AST_EXPR_LAMBDA:
        check_debug_args(c, e->v.Lambda.args, LOC(e));
        check_defaults(c, e->v.Lambda.args);
        in_function_scope(c, lambda_body, e);
        break;
    case AST_EXPR_IF_EXP:
        check_expr(c, e->v.IfExp.test);
        check_expr(c, e->v.IfExp.body);
        check_expr(c, e->v.IfExp.orelse);
        break;
    case AST_EXPR_DICT:
        for (size_t i = 0; i < e->v.Dict.values.count; i++) {
            if (e->v.Dict.keys.items[i]) check_expr(c, e->v.Dict.keys.items[i]);
            check_expr(c, e->v.Dict.values.items[i]);
        }
        break;
    case AST_EXPR_SET: check_elts(c, e, e->v.Set.elts, AST_LOAD); break;
    case AST_EXPR_LIST: check_elts(c, e, e->v.List.elts, e->v.List.ctx); break;
    case AST_EXPR_TUPLE: check_elts(c, e, e->v.Tuple.elts, e->v.Tuple.ctx); break;
    case AST_EXPR_LIST_COMP: check_comprehension(c, e, e->v.ListComp.generators, e->v.ListComp.elt, NULL); break;
    case AST_EXPR_SET_COMP: check_comprehension(c, e, e->v.SetComp.generators, e->v.SetComp.elt, NULL); break;
    case AST_EXPR_GENERATOR_EXP:
        check_comprehension(c, e, e->v.GeneratorExp.generators, e->v.GeneratorExp.elt, NULL);
        break;
    case AST_EXPR_DICT_COMP:
        check_comprehension(c, e, e->v.DictComp.generators, e->v.DictComp.key, e->v.DictComp.value);
        break;
    case AST_EXPR_YIELD:
    case AST_EXPR_YIELD_FROM:
        if (!c->in_function) {
            compiler_error(c, LOC(e), "'yield' outside function");
            break;
        }
        if (e->kind == AST_EXPR_YIELD_FROM && c->scope == CS_ASYNC_FUNCTION) {
            compiler_error(c, LOC(e), "'yield from' inside async function");
            break;
        }
        if (e->kind == AST_EXPR_YIELD && e->v.Yield.value) check_expr(c, e->v.Yield.value);
        if (e->kind == AST_EXPR_YIELD_FROM) check_expr(c, e->v.YieldFrom.value);
        break;
    case AST_EXPR_AWAIT:
        if (!c->in_function) {
            compiler_error(c, LOC(e), "'await' outside function");
            break;
        }
        if (c->scope != CS_ASYNC_FUNCTION && c->scope != CS_COMPREHENSION) {
            compiler_error(c, LOC(e), "'await' outside async function");
            break;
        }
        check_expr(c, e->v.Await.value);
        break;
    case AST_EXPR_COMPARE:
        check_expr(c, e->v.Compare.left);
        check_exprs(c, e->v.Compare.comparators);
        break;
    case AST_EXPR_CALL:
        check_expr(c, e->v.Call.func);
        check_call_args(c, e->v.Call.args, e->v.Call.keywords, LOC(e));
        break;
    case AST_EXPR_FORMATTED_VALUE:
        check_expr(c, e->v.FormattedValue.value);
        if (e->v.FormattedValue.format_spec) check_expr(c, e->v.FormattedValue.format_spec);
        break;
    case AST_EXPR_JOINED_STR: check_exprs(c, e->v.JoinedStr.values); break;
    case AST_EXPR_CONSTANT: break;
    case AST_EXPR_ATTRIBUTE:
        check_expr(c, e->v.Attribute.value);
        forbidden(c, e->v.Attribute.attr, e->v.Attribute.ctx, LOC(e));
        break;
    case AST_EXPR_SUBSCRIPT:
        check_expr(c, e->v.Subscript.value);
        check_expr(c, e->v.Subscript.slice);
        break;
    case AST_EXPR_STARRED:
        compiler_error(c, LOC(e), e->v.Starred.ctx == AST_STORE
                                      ? "starred assignment target must be in a list or tuple"
                                      : "can't use starred expression here");
        break;
    case AST_EXPR_NAME: forbidden(c, e->v.Name.id, e->v.Name.ctx, LOC(e)); break;
    case AST_EXPR_NAMED_EXPR:
        check_expr(c, e->v.NamedExpr.value);
        check_expr(c, e->v.NamedExpr.target);
        break;
    case AST_EXPR_SLICE:
        if (e->v.Slice.lower) check_expr(c, e->v.Slice.lower);
        if (e->v.Slice.upper) check_expr(c, e->v.Slice.upper);
        if (e->v.Slice.step) check_expr(c, e->v.Slice.step);
        break;
    case AST_EXPR__COUNT: break;
    }
}

static void check_function(Checker *c, const AstStmt *s) {
    const AstArguments *a = s->v.FunctionDef.args;
    check_debug_args(c, a, LOC(s));
    check_exprs(c, s->v.FunctionDef.decorator_list);
    check_defaults(c, a);
    check_annotations(c, a, s->v.FunctionDef.returns);
    bool is_async = s->kind == AST_STMT_ASYNC_FUNCTION_DEF;
    in_scope(c, is_async ? CS_ASYNC_FUNCTION : CS_FUNCTION,
             is_async && (scan_stmts(s->v.FunctionDef.body) & SCAN_YIELD), function_body, s);
    forbidden(c, s->v.FunctionDef.name, AST_STORE, LOC(s));
}

static void class_body(Checker *c, const void *s) {
    check_stmts(c, ((const AstStmt *)s)->v.ClassDef.body);
}

static void check_class(Checker *c, const AstStmt *s) {
    check_exprs(c, s->v.ClassDef.decorator_list);
    Checker saved = *c;
    c->in_function = false;
    c->scope = CS_CLASS;
    c->module_or_class = true;
    c->loop_depth = 0;
    class_body(c, s);
    c->in_function = saved.in_function;
    c->scope = saved.scope;
    c->module_or_class = saved.module_or_class;
    c->loop_depth = saved.loop_depth;
    check_call_args(c, s->v.ClassDef.bases, s->v.ClassDef.keywords, LOC(s));
    forbidden(c, s->v.ClassDef.name, AST_STORE, LOC(s));
}

static void check_loop_body(Checker *c, AstStmtSeq body, AstStmtSeq orelse) {
    c->loop_depth++;
    check_stmts(c, body);
    c->loop_depth--;
    check_stmts(c, orelse);
}

static void check_alias_names(Checker *c, const AstStmt *s, AstAliasSeq names) {
    for (size_t i = 0; i < names.count; i++) {
        const AstAlias *a = names.items[i];
        const char *store = a->asname ? a->asname : a->name;
        if (forbidden(c, store, AST_STORE, LOC(s))) return;
    }
}

static bool is_docstring(const AstStmt *s) {
    return s->kind == AST_STMT_EXPR && s->v.Expr.value->kind == AST_EXPR_CONSTANT &&
           s->v.Expr.value->v.Constant.value.type == AST_CONST_STR;
}

static void check_ann_assign(Checker *c, const AstStmt *s) {
    const AstExpr *t = s->v.AnnAssign.target;
    if (s->v.AnnAssign.value) {
        check_expr(c, s->v.AnnAssign.value);
        check_expr(c, t);
    } else if (t->kind == AST_EXPR_NAME) {
        forbidden(c, t->v.Name.id, AST_STORE, LOC(t));
    } else if (t->kind == AST_EXPR_ATTRIBUTE) {
        check_expr(c, t->v.Attribute.value);
    } else if (t->kind == AST_EXPR_SUBSCRIPT) {
        check_expr(c, t->v.Subscript.value);
        check_expr(c, t->v.Subscript.slice);
    }
    if (c->module_or_class && !c->future_annotations) check_expr(c, s->v.AnnAssign.annotation);
}

/* ---- match statements: the errors of compiler_match and its pattern helpers ---- */

/* CPython's pattern_context, for its errors: the names captured so far and whether an
 * irrefutable pattern is allowed here; loc follows compiler_pattern's SET_LOC, which
 * sub-patterns move and nothing restores (the errors report where it stands). */
typedef struct PatCheck {
    const char **stores;
    size_t nstores, cap;
    bool allow_irrefutable;
    Loc loc;
    bool failed;
} PatCheck;

static void pat_error(Checker *c, PatCheck *pc, const char *msg) {
    if (pc->failed) return;
    compiler_error(c, pc->loc, msg);
    pc->failed = true;
}

static bool pat_has(const PatCheck *pc, const char *name) {
    for (size_t i = 0; i < pc->nstores; i++)
        if (strcmp(pc->stores[i], name) == 0) return true;
    return false;
}

static void pat_push(PatCheck *pc, const char *name) {
    if (pc->nstores == pc->cap) {
        size_t cap = pc->cap ? pc->cap * 2 : 8;
        const char **n = realloc(pc->stores, cap * sizeof *n);
        if (!n) {
            pc->failed = true;
            return;
        }
        pc->stores = n;
        pc->cap = cap;
    }
    pc->stores[pc->nstores++] = name;
}

static void pat_duplicate(Checker *c, PatCheck *pc, const char *name) {
    char msg[300];
    snprintf(msg, sizeof msg, "multiple assignments to name '%s' in pattern", name);
    pat_error(c, pc, msg);
}

/* pattern_helper_store_name */
static void pat_store(Checker *c, PatCheck *pc, const char *name) {
    if (!name || pc->failed) return;
    if (strcmp(name, "__debug__") == 0) {
        pat_error(c, pc, "cannot assign to __debug__");
        return;
    }
    if (pat_has(pc, name)) {
        pat_duplicate(c, pc, name);
        return;
    }
    pat_push(pc, name);
}

static bool is_wildcard(const AstPattern *p) {
    return p->kind == AST_PAT_MATCH_AS && !p->v.MatchAs.pattern && !p->v.MatchAs.name;
}

/* A constant after CPython's AST optimizer folds it: a Constant, -number, or real±imaginary. */
static const AstConstant *signed_constant(const AstExpr *e, bool *negate) {
    *negate = false;
    if (e->kind == AST_EXPR_CONSTANT) return &e->v.Constant.value;
    if (e->kind == AST_EXPR_UNARY_OP && e->v.UnaryOp.op == AST_USUB &&
        e->v.UnaryOp.operand->kind == AST_EXPR_CONSTANT) {
        *negate = true;
        return &e->v.UnaryOp.operand->v.Constant.value;
    }
    return NULL;
}

/* A signed int, float or complex constant as complex parts */
static bool signed_complex(const AstExpr *e, double *re, double *im) {
    bool neg;
    const AstConstant *k = signed_constant(e, &neg);
    if (!k) return false;
    double s = neg ? -1.0 : 1.0;
    *im = 0.0;
    switch (k->type) {
    case AST_CONST_INT: *re = s * (double)k->i; return true;
    case AST_CONST_FLOAT: *re = s * k->f; return true;
    case AST_CONST_COMPLEX: *re = s * k->re, *im = s * k->f; return true;
    default: return false;
    }
}

/* The constant in *tmp for real ± imaginary (the optimizer's fold, as complex arithmetic) */
static const AstConstant *folded_complex(const AstExpr *e, AstConstant *tmp) {
    double ar, ai, br, bi;
    if (e->kind != AST_EXPR_BIN_OP || (e->v.BinOp.op != AST_ADD && e->v.BinOp.op != AST_SUB)) return NULL;
    if (!signed_complex(e->v.BinOp.left, &ar, &ai) || !signed_complex(e->v.BinOp.right, &br, &bi)) return NULL;
    bool neg;
    const AstConstant *l = signed_constant(e->v.BinOp.left, &neg), *r = signed_constant(e->v.BinOp.right, &neg);
    if (l->type != AST_CONST_COMPLEX && r->type != AST_CONST_COMPLEX) return NULL;
    memset(tmp, 0, sizeof *tmp);
    tmp->type = AST_CONST_COMPLEX;
    bool add = e->v.BinOp.op == AST_ADD;
    tmp->re = add ? ar + br : ar - br;
    tmp->f = add ? ai + bi : ai - bi;
    return tmp;
}

static const AstConstant *folded_constant(const AstExpr *e, bool *negate, AstConstant *tmp) {
    const AstConstant *k = signed_constant(e, negate);
    return k ? k : folded_complex(e, tmp);
}

/* Two folded constants equal as Python compares set members (1 == 1.0 == True). */
static bool constants_equal(const AstConstant *a, bool na, const AstConstant *b, bool nb) {
    bool anum = a->type == AST_CONST_INT || a->type == AST_CONST_FLOAT || a->type == AST_CONST_BOOL;
    bool bnum = b->type == AST_CONST_INT || b->type == AST_CONST_FLOAT || b->type == AST_CONST_BOOL;
    if (anum && bnum) {
        double x = a->type == AST_CONST_FLOAT ? a->f : a->type == AST_CONST_BOOL ? a->b : (double)a->i;
        double y = b->type == AST_CONST_FLOAT ? b->f : b->type == AST_CONST_BOOL ? b->b : (double)b->i;
        if (a->type == AST_CONST_INT && b->type == AST_CONST_INT) return (na ? -a->i : a->i) == (nb ? -b->i : b->i);
        return (na ? -x : x) == (nb ? -y : y);
    }
    if (a->type != b->type) return false;
    switch (a->type) {
    case AST_CONST_NONE: return true;
    case AST_CONST_COMPLEX:
        return (na ? -a->re : a->re) == (nb ? -b->re : b->re) && (na ? -a->f : a->f) == (nb ? -b->f : b->f);
    case AST_CONST_STR:
    case AST_CONST_BYTES:
    case AST_CONST_BIG_INT: return na == nb && a->s.len == b->s.len && memcmp(a->s.data, b->s.data, a->s.len) == 0;
    default: return false;
    }
}

/* repr() of a folded constant, for "mapping pattern checks duplicate key (%R)". */
static char *constant_repr(const AstConstant *k, bool neg) {
    switch (k->type) {
    case AST_CONST_NONE: return parse_strdup_printf("None");
    case AST_CONST_BOOL: return parse_strdup_printf("%s", k->b ? "True" : "False");
    case AST_CONST_INT: return parse_strdup_printf("%lld", (long long)(neg ? -k->i : k->i));
    case AST_CONST_BIG_INT: return parse_strdup_printf("%s%s", neg ? "-" : "", k->s.data);
    case AST_CONST_FLOAT: return ast_repr_float(neg ? -k->f : k->f);
    case AST_CONST_COMPLEX: return neg ? ast_repr_complex(-k->re, -k->f) : ast_repr_complex(k->re, k->f);
    case AST_CONST_STR: return ast_repr_str(k->s.data, k->s.len);
    case AST_CONST_BYTES: return ast_repr_bytes(k->s.data, k->s.len);
    default: return parse_strdup_printf("...");
    }
}

static void check_pattern(Checker *c, const AstPattern *p, PatCheck *pc);

/* compiler_pattern_subpattern: any sub-pattern may be irrefutable */
static void check_subpattern(Checker *c, const AstPattern *p, PatCheck *pc) {
    bool saved = pc->allow_irrefutable;
    pc->allow_irrefutable = true;
    check_pattern(c, p, pc);
    pc->allow_irrefutable = saved;
}

static void check_pattern_or(Checker *c, const AstPattern *p, PatCheck *pc) {
    PatCheck outer = *pc;
    const AstPatternSeq *alts = &p->v.MatchOr.patterns;
    PatCheck control = {0};
    for (size_t i = 0; i < alts->count && !pc->failed; i++) {
        PatCheck alt = {.allow_irrefutable = i + 1 == alts->count && outer.allow_irrefutable,
                        .loc = LOC(alts->items[i])};
        check_pattern(c, alts->items[i], &alt);
        pc->loc = alt.loc;
        if (alt.failed) {
            pc->failed = true;
        } else if (i == 0) {
            control = alt;
            continue;
        } else {
            bool same = alt.nstores == control.nstores;
            for (size_t k = 0; same && k < control.nstores; k++) same = pat_has(&alt, control.stores[k]);
            if (!same) pat_error(c, pc, "alternative patterns bind different names");
        }
        free(alt.stores);
    }
    for (size_t k = 0; !pc->failed && k < control.nstores; k++) {
        if (pat_has(pc, control.stores[k])) pat_duplicate(c, pc, control.stores[k]);
        else pat_push(pc, control.stores[k]);
    }
    free(control.stores);
}

static void check_pattern(Checker *c, const AstPattern *p, PatCheck *pc) {
    if (pc->failed) return;
    pc->loc = LOC(p);
    switch (p->kind) {
    case AST_PAT_MATCH_VALUE: {
        const AstExpr *v = p->v.MatchValue.value;
        bool neg;
        AstConstant tmp;
        if (!folded_constant(v, &neg, &tmp) && v->kind != AST_EXPR_ATTRIBUTE) {
            pat_error(c, pc, "patterns may only match literals and attribute lookups");
            return;
        }
        check_expr(c, v);
        return;
    }
    case AST_PAT_MATCH_SINGLETON: return;
    case AST_PAT_MATCH_SEQUENCE: {
        const AstPatternSeq *ps = &p->v.MatchSequence.patterns;
        bool star = false;
        for (size_t i = 0; i < ps->count; i++) {
            if (ps->items[i]->kind != AST_PAT_MATCH_STAR) continue;
            if (star) {
                pat_error(c, pc, "multiple starred names in sequence pattern");
                return;
            }
            star = true;
        }
        for (size_t i = 0; i < ps->count && !pc->failed; i++)
            if (!is_wildcard(ps->items[i])) check_subpattern(c, ps->items[i], pc);
        return;
    }
    case AST_PAT_MATCH_MAPPING: {
        const AstExprSeq *keys = &p->v.MatchMapping.keys;
        for (size_t i = 0; i < keys->count; i++) {
            const AstExpr *k = keys->items[i];
            bool neg;
            AstConstant tk, tj;
            const AstConstant *kc = folded_constant(k, &neg, &tk);
            if (kc) {
                for (size_t j = 0; j < i; j++) {
                    bool nj;
                    const AstConstant *jc = folded_constant(keys->items[j], &nj, &tj);
                    if (!jc || !constants_equal(jc, nj, kc, neg)) continue;
                    char *r = constant_repr(kc, neg), msg[400];
                    snprintf(msg, sizeof msg, "mapping pattern checks duplicate key (%s)", r ? r : "?");
                    free(r);
                    pat_error(c, pc, msg);
                    return;
                }
            } else if (k->kind != AST_EXPR_ATTRIBUTE) {
                pat_error(c, pc, "mapping pattern keys may only match literals and attribute lookups");
                return;
            }
            check_expr(c, k);
        }
        for (size_t i = 0; i < p->v.MatchMapping.patterns.count && !pc->failed; i++)
            check_subpattern(c, p->v.MatchMapping.patterns.items[i], pc);
        pat_store(c, pc, p->v.MatchMapping.rest);
        return;
    }
    case AST_PAT_MATCH_CLASS: {
        const AstIdentSeq *attrs = &p->v.MatchClass.kwd_attrs;
        const AstPatternSeq *kps = &p->v.MatchClass.kwd_patterns;
        for (size_t i = 0; i < attrs->count; i++) { /* validate_kwd_attrs */
            pc->loc = LOC(kps->items[i]);
            if (strcmp(attrs->items[i], "__debug__") == 0) {
                pat_error(c, pc, "cannot assign to __debug__");
                return;
            }
            for (size_t j = i + 1; j < attrs->count; j++) {
                if (strcmp(attrs->items[i], attrs->items[j]) != 0) continue;
                pc->loc = LOC(kps->items[j]);
                char msg[300];
                snprintf(msg, sizeof msg, "attribute name repeated in class pattern: %s", attrs->items[i]);
                pat_error(c, pc, msg);
                return;
            }
        }
        pc->loc = LOC(p);
        check_expr(c, p->v.MatchClass.cls);
        for (size_t i = 0; i < p->v.MatchClass.patterns.count && !pc->failed; i++)
            if (!is_wildcard(p->v.MatchClass.patterns.items[i])) check_subpattern(c, p->v.MatchClass.patterns.items[i], pc);
        for (size_t i = 0; i < kps->count && !pc->failed; i++)
            if (!is_wildcard(kps->items[i])) check_subpattern(c, kps->items[i], pc);
        return;
    }
    case AST_PAT_MATCH_STAR: pat_store(c, pc, p->v.MatchStar.name); return;
    case AST_PAT_MATCH_AS:
        if (!p->v.MatchAs.pattern) {
            if (!pc->allow_irrefutable) {
                char msg[300];
                if (p->v.MatchAs.name)
                    snprintf(msg, sizeof msg, "name capture '%s' makes remaining patterns unreachable", p->v.MatchAs.name);
                else
                    snprintf(msg, sizeof msg, "wildcard makes remaining patterns unreachable");
                pat_error(c, pc, msg);
                return;
            }
            pat_store(c, pc, p->v.MatchAs.name);
            return;
        }
        check_pattern(c, p->v.MatchAs.pattern, pc);
        pat_store(c, pc, p->v.MatchAs.name);
        return;
    case AST_PAT_MATCH_OR: check_pattern_or(c, p, pc); return;
    case AST_PAT__COUNT: return;
    }
}

/* compiler_match_inner: each case's pattern (an irrefutable one only guarded or last; a
 * trailing `case _` compiles no pattern), its guard and body */
static void check_match(Checker *c, const AstStmt *s) {
    check_expr(c, s->v.Match.subject);
    const AstMatchCaseSeq *cases = &s->v.Match.cases;
    size_t n = cases->count;
    bool has_default = n > 1 && is_wildcard(cases->items[n - 1]->pattern);
    for (size_t i = 0; i < n; i++) {
        const AstMatchCase *m = cases->items[i];
        if (i < n - has_default) {
            PatCheck pc = {.allow_irrefutable = m->guard != NULL || i + 1 == n, .loc = LOC(m->pattern)};
            check_pattern(c, m->pattern, &pc);
            free(pc.stores);
            if (pc.failed) return;
        }
        if (m->guard) check_expr(c, m->guard);
        check_stmts(c, m->body);
    }
}

static void check_try(Checker *c, const AstStmt *s) {
    check_stmts(c, s->v.Try.body);
    check_stmts(c, s->v.Try.orelse);
    for (size_t i = 0; i < s->v.Try.handlers.count; i++) {
        const AstExceptHandler *h = s->v.Try.handlers.items[i];
        if (!h->type && i + 1 < s->v.Try.handlers.count) {
            compiler_error(c, LOC(h), "default 'except:' must be last");
            return;
        }
        if (h->type) check_expr(c, h->type);
        if (h->name && forbidden(c, h->name, AST_STORE, LOC(h))) continue;
        check_stmts(c, h->body);
    }
    check_stmts(c, s->v.Try.finalbody);
}

static void check_stmt(Checker *c, const AstStmt *s) {
    switch (s->kind) {
    case AST_STMT_FUNCTION_DEF:
    case AST_STMT_ASYNC_FUNCTION_DEF: check_function(c, s); break;
    case AST_STMT_CLASS_DEF: check_class(c, s); break;
    case AST_STMT_RETURN:
        if (!c->in_function) compiler_error(c, LOC(s), "'return' outside function");
        else if (s->v.Return.value && c->async_generator)
            compiler_error(c, LOC(s), "'return' with value in async generator");
        else if (s->v.Return.value) check_expr(c, s->v.Return.value);
        break;
    case AST_STMT_DELETE: check_exprs(c, s->v.Delete.targets); break;
    case AST_STMT_ASSIGN:
        check_expr(c, s->v.Assign.value);
        check_exprs(c, s->v.Assign.targets);
        break;
    case AST_STMT_AUG_ASSIGN: {
        const AstExpr *t = s->v.AugAssign.target;
        if (t->kind == AST_EXPR_ATTRIBUTE) check_expr(c, t->v.Attribute.value);
        else if (t->kind == AST_EXPR_SUBSCRIPT) {
            check_expr(c, t->v.Subscript.value);
            check_expr(c, t->v.Subscript.slice);
        }
        check_expr(c, s->v.AugAssign.value);
        if (t->kind == AST_EXPR_NAME) forbidden(c, t->v.Name.id, AST_STORE, LOC(t));
        else if (t->kind == AST_EXPR_ATTRIBUTE) forbidden(c, t->v.Attribute.attr, AST_STORE, LOC(t));
        break;
    }
    case AST_STMT_ANN_ASSIGN: check_ann_assign(c, s); break;
    case AST_STMT_ASYNC_FOR:
        if (c->scope != CS_ASYNC_FUNCTION) {
            compiler_error(c, LOC(s), "'async for' outside async function");
            break;
        }
        /* fall through */
    case AST_STMT_FOR:
        check_expr(c, s->v.For.iter);
        check_expr(c, s->v.For.target);
        check_loop_body(c, s->v.For.body, s->v.For.orelse);
        break;
    case AST_STMT_WHILE:
        check_expr(c, s->v.While.test);
        check_loop_body(c, s->v.While.body, s->v.While.orelse);
        break;
    case AST_STMT_IF:
        check_expr(c, s->v.If.test);
        check_stmts(c, s->v.If.body);
        check_stmts(c, s->v.If.orelse);
        break;
    case AST_STMT_ASYNC_WITH:
        if (c->scope != CS_ASYNC_FUNCTION) {
            compiler_error(c, LOC(s), "'async with' outside async function");
            break;
        }
        /* fall through */
    case AST_STMT_WITH:
        for (size_t i = 0; i < s->v.With.items.count; i++) {
            check_expr(c, s->v.With.items.items[i]->context_expr);
            if (s->v.With.items.items[i]->optional_vars)
                check_expr(c, s->v.With.items.items[i]->optional_vars);
        }
        check_stmts(c, s->v.With.body);
        break;
    case AST_STMT_RAISE:
        if (s->v.Raise.exc) check_expr(c, s->v.Raise.exc);
        if (s->v.Raise.cause) check_expr(c, s->v.Raise.cause);
        break;
    case AST_STMT_TRY: check_try(c, s); break;
    case AST_STMT_MATCH: check_match(c, s); break;
    case AST_STMT_ASSERT:
        check_expr(c, s->v.Assert.test);
        if (s->v.Assert.msg) check_expr(c, s->v.Assert.msg);
        break;
    case AST_STMT_IMPORT: check_alias_names(c, s, s->v.Import.names); break;
    case AST_STMT_IMPORT_FROM:
        if (s->lineno > c->future_lineno && s->v.ImportFrom.module &&
            strcmp(s->v.ImportFrom.module, "__future__") == 0) {
            compiler_error(c, LOC(s), "from __future__ imports must occur at the beginning of the file");
            break;
        }
        check_alias_names(c, s, s->v.ImportFrom.names);
        break;
    case AST_STMT_EXPR:
        if (!is_docstring(s)) check_expr(c, s->v.Expr.value);
        break;
    case AST_STMT_BREAK:
        if (!c->loop_depth) compiler_error(c, LOC(s), "'break' outside loop");
        break;
    case AST_STMT_CONTINUE:
        if (!c->loop_depth) compiler_error(c, LOC(s), "'continue' not properly in loop");
        break;
    case AST_STMT_GLOBAL:
    case AST_STMT_NONLOCAL:
    case AST_STMT_PASS:
    case AST_STMT__COUNT: break;
    }
}

static void check_stmts(Checker *c, AstStmtSeq body) {
    for (size_t i = 0; i < body.count; i++) check_stmt(c, body.items[i]);
}

/* future_check_features */
static bool check_future_features(Checker *c, const AstStmt *s) {
    static const char *const known[] = {"nested_scopes", "generators", "division",
                                        "absolute_import", "with_statement", "print_function",
                                        "unicode_literals", "barry_as_FLUFL", "generator_stop",
                                        "annotations"};
    for (size_t i = 0; i < s->v.ImportFrom.names.count; i++) {
        const char *f = s->v.ImportFrom.names.items[i]->name;
        bool ok = false;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            if (strcmp(f, known[k]) == 0) ok = true;
        if (strcmp(f, "annotations") == 0) c->future_annotations = true;
        if (ok) continue;
        char msg[300];
        if (strcmp(f, "braces") == 0) snprintf(msg, sizeof msg, "not a chance");
        else snprintf(msg, sizeof msg, "future feature %s is not defined", f);
        error_at(c, PARSE_PHASE_FUTURE, LOC(s), s->col_offset + 1, s->lineno, PARSE_POS_NONE, msg);
        return false;
    }
    return true;
}

/* future_parse: __future__ imports may only follow a docstring and each other. */
static bool check_future(Checker *c, const AstModule *mod) {
    size_t i = 0;
    bool done = false;
    int prev_line = 0;
    if (mod->body.count && is_docstring(mod->body.items[0])) i++;
    for (; i < mod->body.count; i++) {
        const AstStmt *s = mod->body.items[i];
        if (done && s->lineno > prev_line) return true;
        prev_line = s->lineno;
        if (s->kind == AST_STMT_IMPORT_FROM && s->v.ImportFrom.module &&
            strcmp(s->v.ImportFrom.module, "__future__") == 0) {
            if (done) {
                error_at(c, PARSE_PHASE_FUTURE, LOC(s), s->col_offset, s->lineno, PARSE_POS_NONE,
                         "from __future__ imports must occur at the beginning of the file");
                return false;
            }
            if (!check_future_features(c, s)) return false;
            c->future_lineno = s->lineno;
        } else {
            done = true;
        }
    }
    return true;
}

/* ---- nesting depth ---- */

/* Depth-first walk that gives up past `limit`; returns the node where it did, else NULL.
 * Its own recursion is bounded by the limit. */
typedef struct DepthWalk {
    int limit;
    const AstExpr *deep_expr;
    const AstStmt *deep_stmt;
} DepthWalk;

static bool depth_expr(DepthWalk *w, const AstExpr *e, int d);
static bool depth_stmts(DepthWalk *w, AstStmtSeq body, int d);

static bool depth_exprs(DepthWalk *w, AstExprSeq seq, int d) {
    for (size_t i = 0; i < seq.count; i++)
        if (seq.items[i] && !depth_expr(w, seq.items[i], d)) return false;
    return true;
}

static bool depth_args(DepthWalk *w, const AstArguments *a, int d) {
    const AstArgSeq *seqs[3] = {&a->posonlyargs, &a->args, &a->kwonlyargs};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < seqs[k]->count; i++)
            if (seqs[k]->items[i]->annotation && !depth_expr(w, seqs[k]->items[i]->annotation, d)) return false;
    if (a->vararg && a->vararg->annotation && !depth_expr(w, a->vararg->annotation, d)) return false;
    if (a->kwarg && a->kwarg->annotation && !depth_expr(w, a->kwarg->annotation, d)) return false;
    return depth_exprs(w, a->defaults, d) && depth_exprs(w, a->kw_defaults, d);
}

static bool depth_comp(DepthWalk *w, AstComprehensionSeq gens, int d) {
    for (size_t i = 0; i < gens.count; i++) {
        const AstComprehension *g = gens.items[i];
        if (!depth_expr(w, g->target, d) || !depth_expr(w, g->iter, d) || !depth_exprs(w, g->ifs, d))
            return false;
    }
    return true;
}

static bool depth_opt(DepthWalk *w, const AstExpr *e, int d) { return !e || depth_expr(w, e, d); }

static bool depth_expr(DepthWalk *w, const AstExpr *e, int d) {
    if (d > w->limit) {
        w->deep_expr = e;
        return false;
    }
    d++;
    switch (e->kind) {
    case AST_EXPR_BOOL_OP: return depth_exprs(w, e->v.BoolOp.values, d);
    case AST_EXPR_BIN_OP: return depth_expr(w, e->v.BinOp.left, d) && depth_expr(w, e->v.BinOp.right, d);
    case AST_EXPR_UNARY_OP: return depth_expr(w, e->v.UnaryOp.operand, d);
    case AST_EXPR_LAMBDA: return depth_args(w, e->v.Lambda.args, d) && depth_expr(w, e->v.Lambda.body, d);
    case AST_EXPR_IF_EXP:
        return depth_expr(w, e->v.IfExp.test, d) && depth_expr(w, e->v.IfExp.body, d) &&
               depth_expr(w, e->v.IfExp.orelse, d);
    case AST_EXPR_DICT: return depth_exprs(w, e->v.Dict.keys, d) && depth_exprs(w, e->v.Dict.values, d);
    case AST_EXPR_SET: return depth_exprs(w, e->v.Set.elts, d);
    case AST_EXPR_LIST_COMP: return depth_expr(w, e->v.ListComp.elt, d) && depth_comp(w, e->v.ListComp.generators, d);
    case AST_EXPR_SET_COMP: return depth_expr(w, e->v.SetComp.elt, d) && depth_comp(w, e->v.SetComp.generators, d);
    case AST_EXPR_GENERATOR_EXP:
        return depth_expr(w, e->v.GeneratorExp.elt, d) && depth_comp(w, e->v.GeneratorExp.generators, d);
    case AST_EXPR_DICT_COMP:
        return depth_expr(w, e->v.DictComp.key, d) && depth_expr(w, e->v.DictComp.value, d) &&
               depth_comp(w, e->v.DictComp.generators, d);
    case AST_EXPR_YIELD: return depth_opt(w, e->v.Yield.value, d);
    case AST_EXPR_YIELD_FROM: return depth_expr(w, e->v.YieldFrom.value, d);
    case AST_EXPR_COMPARE: return depth_expr(w, e->v.Compare.left, d) && depth_exprs(w, e->v.Compare.comparators, d);
    case AST_EXPR_CALL:
        if (!depth_expr(w, e->v.Call.func, d) || !depth_exprs(w, e->v.Call.args, d)) return false;
        for (size_t i = 0; i < e->v.Call.keywords.count; i++)
            if (!depth_expr(w, e->v.Call.keywords.items[i]->value, d)) return false;
        return true;
    case AST_EXPR_FORMATTED_VALUE:
        return depth_expr(w, e->v.FormattedValue.value, d) && depth_opt(w, e->v.FormattedValue.format_spec, d);
    case AST_EXPR_JOINED_STR: return depth_exprs(w, e->v.JoinedStr.values, d);
    case AST_EXPR_CONSTANT:
    case AST_EXPR_NAME: return true;
    case AST_EXPR_ATTRIBUTE: return depth_expr(w, e->v.Attribute.value, d);
    case AST_EXPR_SUBSCRIPT: return depth_expr(w, e->v.Subscript.value, d) && depth_expr(w, e->v.Subscript.slice, d);
    case AST_EXPR_STARRED: return depth_expr(w, e->v.Starred.value, d);
    case AST_EXPR_LIST: return depth_exprs(w, e->v.List.elts, d);
    case AST_EXPR_TUPLE: return depth_exprs(w, e->v.Tuple.elts, d);
    case AST_EXPR_SLICE:
        return depth_opt(w, e->v.Slice.lower, d) && depth_opt(w, e->v.Slice.upper, d) && depth_opt(w, e->v.Slice.step, d);
    case AST_EXPR_NAMED_EXPR: return depth_expr(w, e->v.NamedExpr.target, d) && depth_expr(w, e->v.NamedExpr.value, d);
    case AST_EXPR_AWAIT: return depth_expr(w, e->v.Await.value, d);
    case AST_EXPR__COUNT: break;
    }
    return true;
}

static bool depth_pattern(DepthWalk *w, const AstPattern *p, int d);

static bool depth_patterns(DepthWalk *w, AstPatternSeq seq, int d) {
    for (size_t i = 0; i < seq.count; i++)
        if (!depth_pattern(w, seq.items[i], d)) return false;
    return true;
}

static bool depth_pattern(DepthWalk *w, const AstPattern *p, int d) {
    if (d > w->limit) return false;
    d++;
    switch (p->kind) {
    case AST_PAT_MATCH_VALUE: return depth_expr(w, p->v.MatchValue.value, d);
    case AST_PAT_MATCH_SEQUENCE: return depth_patterns(w, p->v.MatchSequence.patterns, d);
    case AST_PAT_MATCH_MAPPING:
        return depth_exprs(w, p->v.MatchMapping.keys, d) && depth_patterns(w, p->v.MatchMapping.patterns, d);
    case AST_PAT_MATCH_CLASS:
        return depth_expr(w, p->v.MatchClass.cls, d) && depth_patterns(w, p->v.MatchClass.patterns, d) &&
               depth_patterns(w, p->v.MatchClass.kwd_patterns, d);
    case AST_PAT_MATCH_AS: return !p->v.MatchAs.pattern || depth_pattern(w, p->v.MatchAs.pattern, d);
    case AST_PAT_MATCH_OR: return depth_patterns(w, p->v.MatchOr.patterns, d);
    default: return true;
    }
}

static bool depth_stmt(DepthWalk *w, const AstStmt *s, int d) {
    if (d > w->limit) {
        w->deep_stmt = s;
        return false;
    }
    d++;
    switch (s->kind) {
    case AST_STMT_FUNCTION_DEF:
    case AST_STMT_ASYNC_FUNCTION_DEF:
        return depth_exprs(w, s->v.FunctionDef.decorator_list, d) && depth_args(w, s->v.FunctionDef.args, d) &&
               depth_opt(w, s->v.FunctionDef.returns, d) && depth_stmts(w, s->v.FunctionDef.body, d);
    case AST_STMT_CLASS_DEF:
        if (!depth_exprs(w, s->v.ClassDef.decorator_list, d) || !depth_exprs(w, s->v.ClassDef.bases, d)) return false;
        for (size_t i = 0; i < s->v.ClassDef.keywords.count; i++)
            if (!depth_expr(w, s->v.ClassDef.keywords.items[i]->value, d)) return false;
        return depth_stmts(w, s->v.ClassDef.body, d);
    case AST_STMT_RETURN: return depth_opt(w, s->v.Return.value, d);
    case AST_STMT_DELETE: return depth_exprs(w, s->v.Delete.targets, d);
    case AST_STMT_ASSIGN: return depth_exprs(w, s->v.Assign.targets, d) && depth_expr(w, s->v.Assign.value, d);
    case AST_STMT_AUG_ASSIGN: return depth_expr(w, s->v.AugAssign.target, d) && depth_expr(w, s->v.AugAssign.value, d);
    case AST_STMT_ANN_ASSIGN:
        return depth_expr(w, s->v.AnnAssign.target, d) && depth_expr(w, s->v.AnnAssign.annotation, d) &&
               depth_opt(w, s->v.AnnAssign.value, d);
    case AST_STMT_FOR:
    case AST_STMT_ASYNC_FOR:
        return depth_expr(w, s->v.For.target, d) && depth_expr(w, s->v.For.iter, d) &&
               depth_stmts(w, s->v.For.body, d) && depth_stmts(w, s->v.For.orelse, d);
    case AST_STMT_WHILE:
        return depth_expr(w, s->v.While.test, d) && depth_stmts(w, s->v.While.body, d) && depth_stmts(w, s->v.While.orelse, d);
    case AST_STMT_IF:
        return depth_expr(w, s->v.If.test, d) && depth_stmts(w, s->v.If.body, d) && depth_stmts(w, s->v.If.orelse, d);
    case AST_STMT_WITH:
    case AST_STMT_ASYNC_WITH:
        for (size_t i = 0; i < s->v.With.items.count; i++)
            if (!depth_expr(w, s->v.With.items.items[i]->context_expr, d) ||
                !depth_opt(w, s->v.With.items.items[i]->optional_vars, d))
                return false;
        return depth_stmts(w, s->v.With.body, d);
    case AST_STMT_RAISE: return depth_opt(w, s->v.Raise.exc, d) && depth_opt(w, s->v.Raise.cause, d);
    case AST_STMT_TRY:
        if (!depth_stmts(w, s->v.Try.body, d)) return false;
        for (size_t i = 0; i < s->v.Try.handlers.count; i++)
            if (!depth_opt(w, s->v.Try.handlers.items[i]->type, d) || !depth_stmts(w, s->v.Try.handlers.items[i]->body, d))
                return false;
        return depth_stmts(w, s->v.Try.orelse, d) && depth_stmts(w, s->v.Try.finalbody, d);
    case AST_STMT_ASSERT: return depth_expr(w, s->v.Assert.test, d) && depth_opt(w, s->v.Assert.msg, d);
    case AST_STMT_EXPR: return depth_expr(w, s->v.Expr.value, d);
    case AST_STMT_MATCH:
        if (!depth_expr(w, s->v.Match.subject, d)) return false;
        for (size_t i = 0; i < s->v.Match.cases.count; i++) {
            const AstMatchCase *m = s->v.Match.cases.items[i];
            if (!depth_pattern(w, m->pattern, d)) {
                if (!w->deep_expr) w->deep_stmt = s;
                return false;
            }
            if (!depth_opt(w, m->guard, d) || !depth_stmts(w, m->body, d)) return false;
        }
        return true;
    default: return true;
    }
}

static bool depth_stmts(DepthWalk *w, AstStmtSeq body, int d) {
    for (size_t i = 0; i < body.count; i++)
        if (!depth_stmt(w, body.items[i], d)) return false;
    return true;
}

/* CPython compiles at most ~3000 nested nodes (symtable.c's recursion limit, 1000 frames
 * scaled by 3); deeper trees raise RecursionError.  Ember reports them as a syntax error so
 * that nothing downstream (symbol tables, compiler) recurses deeper than this. */
static bool check_depth(const AstModule *mod, const Lexer *lx, ParseErrorList *errors) {
    DepthWalk w = {PARSE_MAX_AST_DEPTH, NULL, NULL};
    if (depth_stmts(&w, mod->body, 0) && (!mod->expr || depth_expr(&w, mod->expr, 0)) &&
        depth_exprs(&w, mod->argtypes, 0))
        return true;
    int lineno = w.deep_expr ? w.deep_expr->lineno : w.deep_stmt->lineno;
    int col = w.deep_expr ? w.deep_expr->col_offset : w.deep_stmt->col_offset;
    size_t len = 0;
    const char *line = lex_line_nl(lx, lineno, &len);
    int ccol = line ? parse_byte_to_char_offset(line, len, col + 1) : col + 1;
    parse_errors_add(errors, PARSE_SYNTAX_ERROR, PARSE_PHASE_PARSER,
                     "maximum recursion depth exceeded during compilation", lineno, ccol, lineno,
                     ccol, line, len);
    return false;
}

ParseCheckResult parse_check_module(const AstModule *mod, const Lexer *lx, ParseErrorList *errors) {
    Checker c = {.lx = lx, .errors = errors, .scope = CS_MODULE, .module_or_class = true};
    ParseCheckResult r = {false, false};
    if (!check_depth(mod, lx, errors)) {
        r.unsupported = true;
        return r;
    }
    if (mod->kind == AST_MOD_MODULE) {
        if (check_future(&c, mod)) check_stmts(&c, mod->body);
    } else if (mod->kind == AST_MOD_INTERACTIVE) {
        check_stmts(&c, mod->body);
    } else if (mod->kind == AST_MOD_EXPRESSION) {
        check_expr(&c, mod->expr);
    }
    r.future_annotations = c.future_annotations;
    return r;
}
