/* ast_validate.c — the checks CPython 3.11's Python/ast.c (PyAST_Validate) makes on a tree built
 * by hand before compiling it: expression contexts, non-empty bodies and lists, node positions,
 * names that cannot be identifiers, pattern shapes.  A tree from the parser always passes;
 * these guard compile(tree, ...) (ast_from_obj.c), with CPython's exception kinds and messages.
 * Nothing here knows the VM. */
#include "src/frontend/ast_validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct V {
    AstValidateError *err;
    int depth;
} V;

#define MAX_DEPTH 3000

static bool fail(V *v, AstValidateKind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(V *v, AstValidateKind kind, const char *fmt, ...) {
    v->err->kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->err->message, sizeof v->err->message, fmt, ap);
    va_end(ap);
    return false;
}

static bool validate_expr(V *v, const AstExpr *e, AstExprContext ctx);
static bool validate_stmts(V *v, const AstStmtSeq *seq);
static bool validate_pattern(V *v, const AstPattern *p, bool star_ok);

static const char *ctx_name(AstExprContext ctx) {
    return ctx == AST_LOAD ? "Load" : ctx == AST_STORE ? "Store" : "Del";
}

/* VALIDATE_POSITIONS */
static bool positions(V *v, int lineno, int col, int end_lineno, int end_col) {
    if (lineno > end_lineno) return fail(v, AST_VALIDATE_VALUE_ERROR, "AST node line range (%d, %d) is not valid", lineno, end_lineno);
    if ((lineno < 0 && end_lineno != lineno) || (col < 0 && col != end_col))
        return fail(v, AST_VALIDATE_VALUE_ERROR, "AST node column range (%d, %d) for line range (%d, %d) is not valid", col,
                    end_col, lineno, end_lineno);
    if (lineno == end_lineno && col > end_col)
        return fail(v, AST_VALIDATE_VALUE_ERROR, "line %d, column %d-%d is not a valid range", lineno, col, end_col);
    return true;
}

static bool validate_name(V *v, const char *name) {
    if (strcmp(name, "None") == 0 || strcmp(name, "True") == 0 || strcmp(name, "False") == 0)
        return fail(v, AST_VALIDATE_VALUE_ERROR, "identifier field can't represent '%s' constant", name);
    return true;
}

static bool nonempty(V *v, size_t count, const char *what, const char *owner) {
    if (count) return true;
    return fail(v, AST_VALIDATE_VALUE_ERROR, "empty %s on %s", what, owner);
}

static bool validate_exprs(V *v, const AstExprSeq *seq, AstExprContext ctx, bool null_ok) {
    for (size_t i = 0; i < seq->count; i++) {
        const AstExpr *e = seq->items[i];
        if (!e) {
            if (null_ok) continue;
            return fail(v, AST_VALIDATE_VALUE_ERROR, "None disallowed in expression list");
        }
        if (!validate_expr(v, e, ctx)) return false;
    }
    return true;
}

static bool validate_keywords(V *v, const AstKeywordSeq *kws) {
    for (size_t i = 0; i < kws->count; i++)
        if (!validate_expr(v, kws->items[i]->value, AST_LOAD)) return false;
    return true;
}

static bool validate_args(V *v, const AstArgSeq *args) {
    for (size_t i = 0; i < args->count; i++) {
        const AstArg *a = args->items[i];
        if (!positions(v, a->lineno, a->col_offset, a->end_lineno, a->end_col_offset)) return false;
        if (a->annotation && !validate_expr(v, a->annotation, AST_LOAD)) return false;
    }
    return true;
}

static bool validate_arguments(V *v, const AstArguments *a) {
    if (!validate_args(v, &a->posonlyargs) || !validate_args(v, &a->args)) return false;
    if (a->vararg && a->vararg->annotation && !validate_expr(v, a->vararg->annotation, AST_LOAD)) return false;
    if (!validate_args(v, &a->kwonlyargs)) return false;
    if (a->kwarg && a->kwarg->annotation && !validate_expr(v, a->kwarg->annotation, AST_LOAD)) return false;
    if (a->defaults.count > a->posonlyargs.count + a->args.count)
        return fail(v, AST_VALIDATE_VALUE_ERROR, "more positional defaults than args on arguments");
    if (a->kw_defaults.count != a->kwonlyargs.count)
        return fail(v, AST_VALIDATE_VALUE_ERROR, "length of kwonlyargs is not the same as kw_defaults on arguments");
    return validate_exprs(v, &a->defaults, AST_LOAD, false) && validate_exprs(v, &a->kw_defaults, AST_LOAD, true);
}

static bool validate_comprehension(V *v, const AstComprehensionSeq *gens) {
    if (!gens->count) return fail(v, AST_VALIDATE_VALUE_ERROR, "comprehension with no generators");
    for (size_t i = 0; i < gens->count; i++) {
        const AstComprehension *c = gens->items[i];
        if (!validate_expr(v, c->target, AST_STORE) || !validate_expr(v, c->iter, AST_LOAD) ||
            !validate_exprs(v, &c->ifs, AST_LOAD, false))
            return false;
    }
    return true;
}

static bool has_ctx(const AstExpr *e, AstExprContext *ctx) {
    switch (e->kind) {
    case AST_EXPR_ATTRIBUTE: *ctx = e->v.Attribute.ctx; return true;
    case AST_EXPR_SUBSCRIPT: *ctx = e->v.Subscript.ctx; return true;
    case AST_EXPR_STARRED: *ctx = e->v.Starred.ctx; return true;
    case AST_EXPR_NAME: *ctx = e->v.Name.ctx; return true;
    case AST_EXPR_LIST: *ctx = e->v.List.ctx; return true;
    case AST_EXPR_TUPLE: *ctx = e->v.Tuple.ctx; return true;
    default: return false;
    }
}

static bool validate_expr_inner(V *v, const AstExpr *e, AstExprContext ctx) {
    if (!positions(v, e->lineno, e->col_offset, e->end_lineno, e->end_col_offset)) return false;
    AstExprContext actual;
    if (has_ctx(e, &actual)) {
        if (actual != ctx)
            return fail(v, AST_VALIDATE_VALUE_ERROR, "expression must have %s context but has %s instead", ctx_name(ctx),
                        ctx_name(actual));
    } else if (ctx != AST_LOAD) {
        return fail(v, AST_VALIDATE_VALUE_ERROR, "expression which can't be assigned to in %s context", ctx_name(ctx));
    }
    switch (e->kind) {
    case AST_EXPR_BOOL_OP:
        if (e->v.BoolOp.values.count < 2) return fail(v, AST_VALIDATE_VALUE_ERROR, "BoolOp with less than 2 values");
        return validate_exprs(v, &e->v.BoolOp.values, AST_LOAD, false);
    case AST_EXPR_BIN_OP:
        return validate_expr(v, e->v.BinOp.left, AST_LOAD) && validate_expr(v, e->v.BinOp.right, AST_LOAD);
    case AST_EXPR_UNARY_OP: return validate_expr(v, e->v.UnaryOp.operand, AST_LOAD);
    case AST_EXPR_LAMBDA:
        return validate_arguments(v, e->v.Lambda.args) && validate_expr(v, e->v.Lambda.body, AST_LOAD);
    case AST_EXPR_IF_EXP:
        return validate_expr(v, e->v.IfExp.test, AST_LOAD) && validate_expr(v, e->v.IfExp.body, AST_LOAD) &&
               validate_expr(v, e->v.IfExp.orelse, AST_LOAD);
    case AST_EXPR_DICT:
        if (e->v.Dict.keys.count != e->v.Dict.values.count)
            return fail(v, AST_VALIDATE_VALUE_ERROR, "Dict doesn't have the same number of keys as values");
        /* a None key is `**value` */
        return validate_exprs(v, &e->v.Dict.keys, AST_LOAD, true) &&
               validate_exprs(v, &e->v.Dict.values, AST_LOAD, false);
    case AST_EXPR_SET: return validate_exprs(v, &e->v.Set.elts, AST_LOAD, false);
    case AST_EXPR_LIST_COMP:
        return validate_comprehension(v, &e->v.ListComp.generators) && validate_expr(v, e->v.ListComp.elt, AST_LOAD);
    case AST_EXPR_SET_COMP:
        return validate_comprehension(v, &e->v.SetComp.generators) && validate_expr(v, e->v.SetComp.elt, AST_LOAD);
    case AST_EXPR_GENERATOR_EXP:
        return validate_comprehension(v, &e->v.GeneratorExp.generators) &&
               validate_expr(v, e->v.GeneratorExp.elt, AST_LOAD);
    case AST_EXPR_DICT_COMP:
        return validate_comprehension(v, &e->v.DictComp.generators) && validate_expr(v, e->v.DictComp.key, AST_LOAD) &&
               validate_expr(v, e->v.DictComp.value, AST_LOAD);
    case AST_EXPR_YIELD: return !e->v.Yield.value || validate_expr(v, e->v.Yield.value, AST_LOAD);
    case AST_EXPR_YIELD_FROM: return validate_expr(v, e->v.YieldFrom.value, AST_LOAD);
    case AST_EXPR_AWAIT: return validate_expr(v, e->v.Await.value, AST_LOAD);
    case AST_EXPR_COMPARE:
        if (!e->v.Compare.comparators.count) return fail(v, AST_VALIDATE_VALUE_ERROR, "Compare with no comparators");
        if (e->v.Compare.comparators.count != e->v.Compare.ops.count)
            return fail(v, AST_VALIDATE_VALUE_ERROR, "Compare has a different number of comparators and operands");
        return validate_exprs(v, &e->v.Compare.comparators, AST_LOAD, false) &&
               validate_expr(v, e->v.Compare.left, AST_LOAD);
    case AST_EXPR_CALL:
        return validate_expr(v, e->v.Call.func, AST_LOAD) && validate_exprs(v, &e->v.Call.args, AST_LOAD, false) &&
               validate_keywords(v, &e->v.Call.keywords);
    case AST_EXPR_CONSTANT: return true; /* its type was checked when it was converted */
    case AST_EXPR_JOINED_STR: return validate_exprs(v, &e->v.JoinedStr.values, AST_LOAD, false);
    case AST_EXPR_FORMATTED_VALUE:
        if (!validate_expr(v, e->v.FormattedValue.value, AST_LOAD)) return false;
        return !e->v.FormattedValue.format_spec || validate_expr(v, e->v.FormattedValue.format_spec, AST_LOAD);
    case AST_EXPR_ATTRIBUTE: return validate_expr(v, e->v.Attribute.value, AST_LOAD);
    case AST_EXPR_SUBSCRIPT:
        return validate_expr(v, e->v.Subscript.slice, AST_LOAD) && validate_expr(v, e->v.Subscript.value, AST_LOAD);
    case AST_EXPR_STARRED: return validate_expr(v, e->v.Starred.value, ctx);
    case AST_EXPR_SLICE:
        return (!e->v.Slice.lower || validate_expr(v, e->v.Slice.lower, AST_LOAD)) &&
               (!e->v.Slice.upper || validate_expr(v, e->v.Slice.upper, AST_LOAD)) &&
               (!e->v.Slice.step || validate_expr(v, e->v.Slice.step, AST_LOAD));
    case AST_EXPR_LIST: return validate_exprs(v, &e->v.List.elts, ctx, false);
    case AST_EXPR_TUPLE: return validate_exprs(v, &e->v.Tuple.elts, ctx, false);
    case AST_EXPR_NAMED_EXPR:
        if (e->v.NamedExpr.target->kind != AST_EXPR_NAME)
            return fail(v, AST_VALIDATE_TYPE_ERROR, "NamedExpr target must be a Name");
        return validate_expr(v, e->v.NamedExpr.value, AST_LOAD);
    case AST_EXPR_NAME: return validate_name(v, e->v.Name.id);
    case AST_EXPR__COUNT: break;
    }
    return fail(v, AST_VALIDATE_SYSTEM_ERROR, "unexpected expression");
}

static bool validate_expr(V *v, const AstExpr *e, AstExprContext ctx) {
    if (++v->depth > MAX_DEPTH) return fail(v, AST_VALIDATE_RECURSION_ERROR, "maximum recursion depth exceeded during compilation");
    bool ok = validate_expr_inner(v, e, ctx);
    v->depth--;
    return ok;
}

static bool validate_body(V *v, const AstStmtSeq *body, const char *owner) {
    return nonempty(v, body->count, "body", owner) && validate_stmts(v, body);
}

static bool validate_assignlist(V *v, const AstExprSeq *targets, AstExprContext ctx) {
    return nonempty(v, targets->count, "targets", ctx == AST_DEL ? "Delete" : "Assign") &&
           validate_exprs(v, targets, ctx, false);
}

static bool validate_withitems(V *v, const AstWithItemSeq *items, const char *owner) {
    if (!nonempty(v, items->count, "items", owner)) return false;
    for (size_t i = 0; i < items->count; i++) {
        const AstWithItem *it = items->items[i];
        if (!validate_expr(v, it->context_expr, AST_LOAD) ||
            (it->optional_vars && !validate_expr(v, it->optional_vars, AST_STORE)))
            return false;
    }
    return true;
}

/* The value of a literal pattern: a number, string or bytes constant, a dotted name, -x, a+bj. */
static bool validate_pattern_match_value(V *v, const AstExpr *e) {
    if (!validate_expr(v, e, AST_LOAD)) return false;
    switch (e->kind) {
    case AST_EXPR_CONSTANT:
        switch (e->v.Constant.value.type) {
        case AST_CONST_INT:
        case AST_CONST_BIG_INT:
        case AST_CONST_FLOAT:
        case AST_CONST_COMPLEX:
        case AST_CONST_STR:
        case AST_CONST_BYTES: return true;
        default: return fail(v, AST_VALIDATE_VALUE_ERROR, "unexpected constant inside of a literal pattern");
        }
    case AST_EXPR_ATTRIBUTE: return true;
    case AST_EXPR_UNARY_OP:
        if (e->v.UnaryOp.op == AST_USUB) return true;
        break;
    case AST_EXPR_BIN_OP:
        if (e->v.BinOp.op == AST_ADD || e->v.BinOp.op == AST_SUB) return true;
        break;
    case AST_EXPR_JOINED_STR: return true;
    default: break;
    }
    return fail(v, AST_VALIDATE_VALUE_ERROR, "patterns may only match literals and attribute lookups");
}

static bool validate_capture(V *v, const char *name) {
    if (strcmp(name, "_") == 0) return fail(v, AST_VALIDATE_VALUE_ERROR, "can't capture name '_' in patterns");
    return validate_name(v, name);
}

static bool validate_patterns(V *v, const AstPatternSeq *seq, bool star_ok) {
    for (size_t i = 0; i < seq->count; i++) {
        if (!seq->items[i]) return fail(v, AST_VALIDATE_VALUE_ERROR, "None disallowed in pattern list");
        if (!validate_pattern(v, seq->items[i], star_ok)) return false;
    }
    return true;
}

static bool validate_pattern_inner(V *v, const AstPattern *p, bool star_ok) {
    if (!positions(v, p->lineno, p->col_offset, p->end_lineno, p->end_col_offset)) return false;
    switch (p->kind) {
    case AST_PAT_MATCH_VALUE: return validate_pattern_match_value(v, p->v.MatchValue.value);
    case AST_PAT_MATCH_SINGLETON: {
        AstConstantType t = p->v.MatchSingleton.value.type;
        if (t == AST_CONST_NONE || t == AST_CONST_BOOL) return true;
        return fail(v, AST_VALIDATE_VALUE_ERROR, "MatchSingleton can only contain True, False and None");
    }
    case AST_PAT_MATCH_SEQUENCE: return validate_patterns(v, &p->v.MatchSequence.patterns, true);
    case AST_PAT_MATCH_MAPPING: {
        const AstExprSeq *keys = &p->v.MatchMapping.keys;
        if (keys->count != p->v.MatchMapping.patterns.count)
            return fail(v, AST_VALIDATE_VALUE_ERROR, "MatchMapping doesn't have the same number of keys as patterns");
        if (p->v.MatchMapping.rest && !validate_capture(v, p->v.MatchMapping.rest)) return false;
        for (size_t i = 0; i < keys->count; i++) {
            const AstExpr *k = keys->items[i];
            if (!k) return fail(v, AST_VALIDATE_VALUE_ERROR, "None disallowed in expression list");
            /* None, True and False keys are valid syntax, checked no further */
            if (k->kind == AST_EXPR_CONSTANT &&
                (k->v.Constant.value.type == AST_CONST_NONE || k->v.Constant.value.type == AST_CONST_BOOL))
                continue;
            if (!validate_pattern_match_value(v, k)) return false;
        }
        return validate_patterns(v, &p->v.MatchMapping.patterns, false);
    }
    case AST_PAT_MATCH_CLASS: {
        if (p->v.MatchClass.kwd_attrs.count != p->v.MatchClass.kwd_patterns.count)
            return fail(v, AST_VALIDATE_VALUE_ERROR,
                        "MatchClass doesn't have the same number of keyword attributes as patterns");
        if (!validate_expr(v, p->v.MatchClass.cls, AST_LOAD)) return false;
        for (const AstExpr *c = p->v.MatchClass.cls; c->kind != AST_EXPR_NAME; c = c->v.Attribute.value)
            if (c->kind != AST_EXPR_ATTRIBUTE)
                return fail(v, AST_VALIDATE_VALUE_ERROR, "MatchClass cls field can only contain Name or Attribute nodes.");
        for (size_t i = 0; i < p->v.MatchClass.kwd_attrs.count; i++)
            if (!validate_name(v, p->v.MatchClass.kwd_attrs.items[i])) return false;
        return validate_patterns(v, &p->v.MatchClass.patterns, false) &&
               validate_patterns(v, &p->v.MatchClass.kwd_patterns, false);
    }
    case AST_PAT_MATCH_STAR:
        if (!star_ok) return fail(v, AST_VALIDATE_VALUE_ERROR, "can't use MatchStar here");
        return !p->v.MatchStar.name || validate_capture(v, p->v.MatchStar.name);
    case AST_PAT_MATCH_AS:
        if (p->v.MatchAs.name && !validate_capture(v, p->v.MatchAs.name)) return false;
        if (!p->v.MatchAs.pattern) return true;
        if (!p->v.MatchAs.name)
            return fail(v, AST_VALIDATE_VALUE_ERROR, "MatchAs must specify a target name if a pattern is given");
        return validate_pattern(v, p->v.MatchAs.pattern, false);
    case AST_PAT_MATCH_OR:
        if (p->v.MatchOr.patterns.count < 2) return fail(v, AST_VALIDATE_VALUE_ERROR, "MatchOr requires at least 2 patterns");
        return validate_patterns(v, &p->v.MatchOr.patterns, false);
    case AST_PAT__COUNT: break;
    }
    return fail(v, AST_VALIDATE_SYSTEM_ERROR, "unexpected pattern");
}

static bool validate_pattern(V *v, const AstPattern *p, bool star_ok) {
    if (++v->depth > MAX_DEPTH) return fail(v, AST_VALIDATE_RECURSION_ERROR, "maximum recursion depth exceeded during compilation");
    bool ok = validate_pattern_inner(v, p, star_ok);
    v->depth--;
    return ok;
}

static bool validate_stmt_inner(V *v, const AstStmt *s) {
    if (!positions(v, s->lineno, s->col_offset, s->end_lineno, s->end_col_offset)) return false;
    switch (s->kind) {
    case AST_STMT_FUNCTION_DEF:
    case AST_STMT_ASYNC_FUNCTION_DEF:
        return validate_body(v, &s->v.FunctionDef.body, s->kind == AST_STMT_FUNCTION_DEF ? "FunctionDef" : "AsyncFunctionDef") &&
               validate_arguments(v, s->v.FunctionDef.args) &&
               validate_exprs(v, &s->v.FunctionDef.decorator_list, AST_LOAD, false) &&
               (!s->v.FunctionDef.returns || validate_expr(v, s->v.FunctionDef.returns, AST_LOAD));
    case AST_STMT_CLASS_DEF:
        return validate_body(v, &s->v.ClassDef.body, "ClassDef") && validate_exprs(v, &s->v.ClassDef.bases, AST_LOAD, false) &&
               validate_keywords(v, &s->v.ClassDef.keywords) &&
               validate_exprs(v, &s->v.ClassDef.decorator_list, AST_LOAD, false);
    case AST_STMT_RETURN: return !s->v.Return.value || validate_expr(v, s->v.Return.value, AST_LOAD);
    case AST_STMT_DELETE: return validate_assignlist(v, &s->v.Delete.targets, AST_DEL);
    case AST_STMT_ASSIGN:
        return validate_assignlist(v, &s->v.Assign.targets, AST_STORE) && validate_expr(v, s->v.Assign.value, AST_LOAD);
    case AST_STMT_AUG_ASSIGN:
        return validate_expr(v, s->v.AugAssign.target, AST_STORE) && validate_expr(v, s->v.AugAssign.value, AST_LOAD);
    case AST_STMT_ANN_ASSIGN:
        if (s->v.AnnAssign.target->kind != AST_EXPR_NAME && s->v.AnnAssign.simple)
            return fail(v, AST_VALIDATE_TYPE_ERROR, "AnnAssign with simple non-Name target");
        return validate_expr(v, s->v.AnnAssign.target, AST_STORE) &&
               (!s->v.AnnAssign.value || validate_expr(v, s->v.AnnAssign.value, AST_LOAD)) &&
               validate_expr(v, s->v.AnnAssign.annotation, AST_LOAD);
    case AST_STMT_FOR:
    case AST_STMT_ASYNC_FOR:
        return validate_expr(v, s->v.For.target, AST_STORE) && validate_expr(v, s->v.For.iter, AST_LOAD) &&
               validate_body(v, &s->v.For.body, s->kind == AST_STMT_FOR ? "For" : "AsyncFor") &&
               validate_stmts(v, &s->v.For.orelse);
    case AST_STMT_WHILE:
        return validate_expr(v, s->v.While.test, AST_LOAD) && validate_body(v, &s->v.While.body, "While") &&
               validate_stmts(v, &s->v.While.orelse);
    case AST_STMT_IF:
        return validate_expr(v, s->v.If.test, AST_LOAD) && validate_body(v, &s->v.If.body, "If") &&
               validate_stmts(v, &s->v.If.orelse);
    case AST_STMT_WITH:
    case AST_STMT_ASYNC_WITH: {
        const char *owner = s->kind == AST_STMT_WITH ? "With" : "AsyncWith";
        return validate_withitems(v, &s->v.With.items, owner) && validate_body(v, &s->v.With.body, owner);
    }
    case AST_STMT_MATCH:
        if (!validate_expr(v, s->v.Match.subject, AST_LOAD) || !nonempty(v, s->v.Match.cases.count, "cases", "Match"))
            return false;
        for (size_t i = 0; i < s->v.Match.cases.count; i++) {
            const AstMatchCase *mc = s->v.Match.cases.items[i];
            if (!validate_pattern(v, mc->pattern, false) || (mc->guard && !validate_expr(v, mc->guard, AST_LOAD)) ||
                !validate_body(v, &mc->body, "match_case"))
                return false;
        }
        return true;
    case AST_STMT_RAISE:
        if (s->v.Raise.exc)
            return validate_expr(v, s->v.Raise.exc, AST_LOAD) &&
                   (!s->v.Raise.cause || validate_expr(v, s->v.Raise.cause, AST_LOAD));
        if (s->v.Raise.cause) return fail(v, AST_VALIDATE_VALUE_ERROR, "Raise with cause but no exception");
        return true;
    case AST_STMT_TRY: {
        if (!validate_body(v, &s->v.Try.body, "Try")) return false;
        if (!s->v.Try.handlers.count && !s->v.Try.finalbody.count)
            return fail(v, AST_VALIDATE_VALUE_ERROR, "Try has neither except handlers nor finalbody");
        if (!s->v.Try.handlers.count && s->v.Try.orelse.count)
            return fail(v, AST_VALIDATE_VALUE_ERROR, "Try has orelse but no except handlers");
        for (size_t i = 0; i < s->v.Try.handlers.count; i++) {
            const AstExceptHandler *h = s->v.Try.handlers.items[i];
            if (!positions(v, h->lineno, h->col_offset, h->end_lineno, h->end_col_offset)) return false;
            if ((h->type && !validate_expr(v, h->type, AST_LOAD)) || !validate_body(v, &h->body, "ExceptHandler"))
                return false;
        }
        return (!s->v.Try.finalbody.count || validate_stmts(v, &s->v.Try.finalbody)) &&
               (!s->v.Try.orelse.count || validate_stmts(v, &s->v.Try.orelse));
    }
    case AST_STMT_ASSERT:
        return validate_expr(v, s->v.Assert.test, AST_LOAD) && (!s->v.Assert.msg || validate_expr(v, s->v.Assert.msg, AST_LOAD));
    case AST_STMT_IMPORT: return nonempty(v, s->v.Import.names.count, "names", "Import");
    case AST_STMT_IMPORT_FROM:
        if (s->v.ImportFrom.level < 0) return fail(v, AST_VALIDATE_VALUE_ERROR, "Negative ImportFrom level");
        return nonempty(v, s->v.ImportFrom.names.count, "names", "ImportFrom");
    case AST_STMT_GLOBAL: return nonempty(v, s->v.Global.names.count, "names", "Global");
    case AST_STMT_NONLOCAL: return nonempty(v, s->v.Nonlocal.names.count, "names", "Nonlocal");
    case AST_STMT_EXPR: return validate_expr(v, s->v.Expr.value, AST_LOAD);
    case AST_STMT_PASS:
    case AST_STMT_BREAK:
    case AST_STMT_CONTINUE: return true;
    case AST_STMT__COUNT: break;
    }
    return fail(v, AST_VALIDATE_SYSTEM_ERROR, "unexpected statement");
}

static bool validate_stmts(V *v, const AstStmtSeq *seq) {
    for (size_t i = 0; i < seq->count; i++) {
        const AstStmt *s = seq->items[i];
        if (!s) return fail(v, AST_VALIDATE_VALUE_ERROR, "None disallowed in statement list");
        if (++v->depth > MAX_DEPTH) return fail(v, AST_VALIDATE_RECURSION_ERROR, "maximum recursion depth exceeded during compilation");
        bool ok = validate_stmt_inner(v, s);
        v->depth--;
        if (!ok) return false;
    }
    return true;
}

bool ast_validate(const AstModule *mod, AstValidateError *err) {
    V v = {err, 0};
    err->kind = AST_VALIDATE_OK;
    err->message[0] = '\0';
    switch (mod->kind) {
    case AST_MOD_MODULE:
    case AST_MOD_INTERACTIVE: return validate_stmts(&v, &mod->body);
    case AST_MOD_EXPRESSION: return validate_expr(&v, mod->expr, AST_LOAD);
    case AST_MOD_FUNCTION_TYPE:
        return validate_exprs(&v, &mod->argtypes, AST_LOAD, false) && validate_expr(&v, mod->expr, AST_LOAD);
    }
    return fail(&v, AST_VALIDATE_SYSTEM_ERROR, "impossible module node");
}
