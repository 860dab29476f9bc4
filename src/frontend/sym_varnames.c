/* sym_varnames.c — co_varnames of every function scope.
 *
 * CPython's compiler adds a fast local to co_varnames the first time it emits a load, store
 * or delete of it, so the order after the parameters is the order of *compilation*, which
 * is not the order of the source (an assignment's value is compiled before its targets, a
 * for loop's iterable before its target, a class body before its bases).  This walk visits
 * each scope in compile.c's order and records the LOCAL names of function scopes; each
 * nested scope is walked on its own when its definition is met. */
#include <string.h>

#include "src/frontend/symtable_internal.h"

typedef struct Walk {
    SymTable *st;
    ScopeImpl *sc; /* the scope being compiled */
    size_t cap;
} Walk;

static void walk_expr(Walk *w, const AstExpr *e);
static void walk_stmts(Walk *w, AstStmtSeq body);

static void walk_exprs(Walk *w, AstExprSeq seq) {
    for (size_t i = 0; i < seq.count; i++)
        if (seq.items[i]) walk_expr(w, seq.items[i]);
}

static void add_varname(Walk *w, const char *name) {
    SymScope *s = &w->sc->pub;
    for (size_t i = 0; i < s->nvarnames; i++)
        if (s->varnames[i] == name) return;
    if (s->nvarnames == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 8;
        const char **a = ast_arena_alloc(w->st->arena, cap * sizeof *a);
        if (!a) {
            w->st->failed = true;
            return;
        }
        if (s->nvarnames) memcpy(a, s->varnames, s->nvarnames * sizeof *a);
        s->varnames = a;
        w->cap = cap;
    }
    s->varnames[s->nvarnames++] = name;
}

/* compiler_nameop: a fast local (LOCAL in a function) becomes a varname when first used. */
static void name_op(Walk *w, const char *raw) {
    if (w->sc->pub.type != SYM_BLOCK_FUNCTION) return;
    SymTable *st = w->st;
    const char *name = sym_mangle(st, w->sc->pub.private_name, sym_intern(st, raw));
    const SymSymbol *sym = scope_find(w->sc, name);
    if (sym && sym->scope == SYM_LOCAL) add_varname(w, name);
}

static void start_scope(Walk *w, SymTable *st, ScopeImpl *sc) {
    w->st = st;
    w->sc = sc;
    w->cap = 0;
    static const SymParamKind order[] = {SYM_PARAM_POSONLY, SYM_PARAM_POSITIONAL, SYM_PARAM_KWONLY,
                                         SYM_PARAM_VARARG, SYM_PARAM_KWARG};
    /* co_varnames begins with the parameters: posonly, positional, kwonly, *args, **kwargs */
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        for (size_t i = 0; i < sc->pub.nparams; i++)
            if (sc->pub.params[i].kind == order[k]) add_varname(w, sc->pub.params[i].name);
}

static ScopeImpl *scope_of(Walk *w, const void *node) {
    return (ScopeImpl *)sym_scope_for_node(w->st, node);
}

static void walk_function_scope(SymTable *st, const AstStmt *s) {
    ScopeImpl *sc = (ScopeImpl *)sym_scope_for_node(st, s);
    if (!sc) return;
    Walk w;
    start_scope(&w, st, sc);
    AstStmtSeq body = s->v.FunctionDef.body;
    walk_stmts(&w, body);
}

static void walk_annotations(Walk *w, const AstArguments *a, const AstExpr *returns) {
    if (w->st->future_annotations) return;
    const AstArgSeq *first[2] = {&a->args, &a->posonlyargs};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < first[k]->count; i++)
            if (first[k]->items[i]->annotation) walk_expr(w, first[k]->items[i]->annotation);
    if (a->vararg && a->vararg->annotation) walk_expr(w, a->vararg->annotation);
    for (size_t i = 0; i < a->kwonlyargs.count; i++)
        if (a->kwonlyargs.items[i]->annotation) walk_expr(w, a->kwonlyargs.items[i]->annotation);
    if (a->kwarg && a->kwarg->annotation) walk_expr(w, a->kwarg->annotation);
    if (returns) walk_expr(w, returns);
}

static void walk_comprehension(Walk *w, const AstExpr *e, AstComprehensionSeq gens,
                               const AstExpr *elt, const AstExpr *value) {
    walk_expr(w, gens.items[0]->iter);
    ScopeImpl *sc = scope_of(w, e);
    if (!sc) return;
    Walk inner;
    start_scope(&inner, w->st, sc);
    for (size_t i = 0; i < gens.count; i++) {
        const AstComprehension *g = gens.items[i];
        if (i > 0) walk_expr(&inner, g->iter);
        walk_expr(&inner, g->target);
        walk_exprs(&inner, g->ifs);
    }
    walk_expr(&inner, elt);
    if (value) walk_expr(&inner, value);
}

static void walk_expr(Walk *w, const AstExpr *e) {
    switch (e->kind) {
    case AST_EXPR_BOOL_OP: walk_exprs(w, e->v.BoolOp.values); break;
    case AST_EXPR_BIN_OP:
        walk_expr(w, e->v.BinOp.left);
        walk_expr(w, e->v.BinOp.right);
        break;
    case AST_EXPR_UNARY_OP: walk_expr(w, e->v.UnaryOp.operand); break;
    case AST_EXPR_LAMBDA: {
        walk_exprs(w, e->v.Lambda.args->defaults);
        walk_exprs(w, e->v.Lambda.args->kw_defaults);
        ScopeImpl *sc = scope_of(w, e);
        if (!sc) break;
        Walk inner;
        start_scope(&inner, w->st, sc);
        walk_expr(&inner, e->v.Lambda.body);
        break;
    }
    case AST_EXPR_IF_EXP:
        walk_expr(w, e->v.IfExp.test);
        walk_expr(w, e->v.IfExp.body);
        walk_expr(w, e->v.IfExp.orelse);
        break;
    case AST_EXPR_DICT:
        for (size_t i = 0; i < e->v.Dict.values.count; i++) {
            if (e->v.Dict.keys.items[i]) walk_expr(w, e->v.Dict.keys.items[i]);
            walk_expr(w, e->v.Dict.values.items[i]);
        }
        break;
    case AST_EXPR_SET: walk_exprs(w, e->v.Set.elts); break;
    case AST_EXPR_LIST: walk_exprs(w, e->v.List.elts); break;
    case AST_EXPR_TUPLE: walk_exprs(w, e->v.Tuple.elts); break;
    case AST_EXPR_LIST_COMP: walk_comprehension(w, e, e->v.ListComp.generators, e->v.ListComp.elt, NULL); break;
    case AST_EXPR_SET_COMP: walk_comprehension(w, e, e->v.SetComp.generators, e->v.SetComp.elt, NULL); break;
    case AST_EXPR_GENERATOR_EXP:
        walk_comprehension(w, e, e->v.GeneratorExp.generators, e->v.GeneratorExp.elt, NULL);
        break;
    case AST_EXPR_DICT_COMP:
        walk_comprehension(w, e, e->v.DictComp.generators, e->v.DictComp.key, e->v.DictComp.value);
        break;
    case AST_EXPR_YIELD:
        if (e->v.Yield.value) walk_expr(w, e->v.Yield.value);
        break;
    case AST_EXPR_YIELD_FROM: walk_expr(w, e->v.YieldFrom.value); break;
    case AST_EXPR_COMPARE:
        walk_expr(w, e->v.Compare.left);
        walk_exprs(w, e->v.Compare.comparators);
        break;
    case AST_EXPR_CALL:
        walk_expr(w, e->v.Call.func);
        walk_exprs(w, e->v.Call.args);
        for (size_t i = 0; i < e->v.Call.keywords.count; i++) walk_expr(w, e->v.Call.keywords.items[i]->value);
        break;
    case AST_EXPR_FORMATTED_VALUE:
        walk_expr(w, e->v.FormattedValue.value);
        if (e->v.FormattedValue.format_spec) walk_expr(w, e->v.FormattedValue.format_spec);
        break;
    case AST_EXPR_JOINED_STR: walk_exprs(w, e->v.JoinedStr.values); break;
    case AST_EXPR_CONSTANT: break;
    case AST_EXPR_ATTRIBUTE: walk_expr(w, e->v.Attribute.value); break;
    case AST_EXPR_SUBSCRIPT:
        walk_expr(w, e->v.Subscript.value);
        walk_expr(w, e->v.Subscript.slice);
        break;
    case AST_EXPR_STARRED: walk_expr(w, e->v.Starred.value); break;
    case AST_EXPR_NAME: name_op(w, e->v.Name.id); break;
    case AST_EXPR_SLICE:
        if (e->v.Slice.lower) walk_expr(w, e->v.Slice.lower);
        if (e->v.Slice.upper) walk_expr(w, e->v.Slice.upper);
        if (e->v.Slice.step) walk_expr(w, e->v.Slice.step);
        break;
    case AST_EXPR_NAMED_EXPR:
        walk_expr(w, e->v.NamedExpr.value);
        walk_expr(w, e->v.NamedExpr.target);
        break;
    }
}

static void walk_class(Walk *w, const AstStmt *s) {
    walk_exprs(w, s->v.ClassDef.decorator_list);
    ScopeImpl *sc = scope_of(w, s);
    if (sc) {
        Walk inner;
        start_scope(&inner, w->st, sc);
        walk_stmts(&inner, s->v.ClassDef.body);
    }
    walk_exprs(w, s->v.ClassDef.bases);
    for (size_t i = 0; i < s->v.ClassDef.keywords.count; i++) walk_expr(w, s->v.ClassDef.keywords.items[i]->value);
    name_op(w, s->v.ClassDef.name);
}

static void walk_ann_assign(Walk *w, const AstStmt *s) {
    const AstExpr *t = s->v.AnnAssign.target;
    if (s->v.AnnAssign.value) {
        walk_expr(w, s->v.AnnAssign.value);
        walk_expr(w, t);
    } else if (t->kind == AST_EXPR_ATTRIBUTE) {
        walk_expr(w, t->v.Attribute.value);
    } else if (t->kind == AST_EXPR_SUBSCRIPT) {
        walk_expr(w, t->v.Subscript.value);
        walk_expr(w, t->v.Subscript.slice);
    }
    bool evaluated = w->sc->pub.type != SYM_BLOCK_FUNCTION && !w->st->future_annotations;
    if (evaluated) walk_expr(w, s->v.AnnAssign.annotation);
}

static void walk_alias_stores(Walk *w, AstAliasSeq names) {
    for (size_t i = 0; i < names.count; i++) {
        const AstAlias *a = names.items[i];
        if (strcmp(a->name, "*") == 0) continue;
        const char *n = a->asname ? a->asname : a->name;
        const char *dot = strchr(n, '.');
        char buf[256];
        if (dot) {
            size_t len = (size_t)(dot - n) < sizeof buf - 1 ? (size_t)(dot - n) : sizeof buf - 1;
            memcpy(buf, n, len);
            buf[len] = '\0';
            n = buf;
        }
        name_op(w, n);
    }
}

static bool is_docstring(const AstStmt *s) {
    return s->kind == AST_STMT_EXPR && s->v.Expr.value->kind == AST_EXPR_CONSTANT;
}

static void walk_stmt(Walk *w, const AstStmt *s) {
    switch (s->kind) {
    case AST_STMT_FUNCTION_DEF: {
        const AstArguments *a = s->v.FunctionDef.args;
        walk_exprs(w, s->v.FunctionDef.decorator_list);
        walk_exprs(w, a->defaults);
        walk_exprs(w, a->kw_defaults);
        walk_annotations(w, a, s->v.FunctionDef.returns);
        walk_function_scope(w->st, s);
        name_op(w, s->v.FunctionDef.name);
        break;
    }
    case AST_STMT_CLASS_DEF: walk_class(w, s); break;
    case AST_STMT_RETURN:
        if (s->v.Return.value) walk_expr(w, s->v.Return.value);
        break;
    case AST_STMT_DELETE: walk_exprs(w, s->v.Delete.targets); break;
    case AST_STMT_ASSIGN:
        walk_expr(w, s->v.Assign.value);
        walk_exprs(w, s->v.Assign.targets);
        break;
    case AST_STMT_AUG_ASSIGN: {
        const AstExpr *t = s->v.AugAssign.target;
        if (t->kind == AST_EXPR_NAME) name_op(w, t->v.Name.id);
        else if (t->kind == AST_EXPR_ATTRIBUTE) walk_expr(w, t->v.Attribute.value);
        else if (t->kind == AST_EXPR_SUBSCRIPT) {
            walk_expr(w, t->v.Subscript.value);
            walk_expr(w, t->v.Subscript.slice);
        }
        walk_expr(w, s->v.AugAssign.value);
        break;
    }
    case AST_STMT_ANN_ASSIGN: walk_ann_assign(w, s); break;
    case AST_STMT_FOR:
        walk_expr(w, s->v.For.iter);
        walk_expr(w, s->v.For.target);
        walk_stmts(w, s->v.For.body);
        walk_stmts(w, s->v.For.orelse);
        break;
    case AST_STMT_WHILE:
        walk_expr(w, s->v.While.test);
        walk_stmts(w, s->v.While.body);
        walk_stmts(w, s->v.While.orelse);
        break;
    case AST_STMT_IF:
        walk_expr(w, s->v.If.test);
        walk_stmts(w, s->v.If.body);
        walk_stmts(w, s->v.If.orelse);
        break;
    case AST_STMT_WITH:
        for (size_t i = 0; i < s->v.With.items.count; i++) {
            walk_expr(w, s->v.With.items.items[i]->context_expr);
            if (s->v.With.items.items[i]->optional_vars) walk_expr(w, s->v.With.items.items[i]->optional_vars);
        }
        walk_stmts(w, s->v.With.body);
        break;
    case AST_STMT_RAISE:
        if (s->v.Raise.exc) walk_expr(w, s->v.Raise.exc);
        if (s->v.Raise.cause) walk_expr(w, s->v.Raise.cause);
        break;
    case AST_STMT_TRY:
        walk_stmts(w, s->v.Try.body);
        walk_stmts(w, s->v.Try.orelse);
        for (size_t i = 0; i < s->v.Try.handlers.count; i++) {
            const AstExceptHandler *h = s->v.Try.handlers.items[i];
            if (h->type) walk_expr(w, h->type);
            if (h->name) name_op(w, h->name);
            walk_stmts(w, h->body);
        }
        walk_stmts(w, s->v.Try.finalbody);
        break;
    case AST_STMT_ASSERT:
        walk_expr(w, s->v.Assert.test);
        if (s->v.Assert.msg) walk_expr(w, s->v.Assert.msg);
        break;
    case AST_STMT_IMPORT: walk_alias_stores(w, s->v.Import.names); break;
    case AST_STMT_IMPORT_FROM: walk_alias_stores(w, s->v.ImportFrom.names); break;
    case AST_STMT_EXPR:
        if (!is_docstring(s)) walk_expr(w, s->v.Expr.value);
        break;
    case AST_STMT_GLOBAL:
    case AST_STMT_NONLOCAL:
    case AST_STMT_PASS:
    case AST_STMT_BREAK:
    case AST_STMT_CONTINUE: break;
    }
}

static void walk_stmts(Walk *w, AstStmtSeq body) {
    for (size_t i = 0; i < body.count; i++) walk_stmt(w, body.items[i]);
}

void sym_compute_varnames(SymTable *st, const AstModule *mod) {
    Walk w;
    start_scope(&w, st, st->top);
    walk_stmts(&w, mod->body);
}
