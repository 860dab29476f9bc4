/* sym_visit.c — the first symbol-table pass (CPython 3.11 symtable_visit_*): opens a scope
 * per def/lambda/class/comprehension and records each name with its flags, in the order
 * CPython's visitor meets them, raising the errors CPython raises during the visit. */
#include <stdlib.h>
#include <string.h>

#include "src/common/check.h"
#include "src/frontend/symtable_internal.h"

#define SYM_MAX_DEPTH 4000

typedef struct Loc {
    int lineno, col_offset, end_lineno, end_col_offset;
} Loc;

#define LOC(n) ((Loc){(n)->lineno, (n)->col_offset, (n)->end_lineno, (n)->end_col_offset})

static bool visit_expr(SymTable *st, const AstExpr *e);
static bool visit_pattern(SymTable *st, const AstPattern *p);
static bool visit_stmt(SymTable *st, const AstStmt *s);

static bool visit_exprs(SymTable *st, AstExprSeq seq) {
    for (size_t i = 0; i < seq.count; i++)
        if (seq.items[i] && !visit_expr(st, seq.items[i])) return false;
    return true;
}

static bool visit_stmts(SymTable *st, AstStmtSeq seq) {
    for (size_t i = 0; i < seq.count; i++)
        if (!visit_stmt(st, seq.items[i])) return false;
    return true;
}

/* symtable_add_def_helper */
static bool add_def_in(SymTable *st, ScopeImpl *sc, const char *raw, int flag, Loc l) {
    const char *name = sym_mangle(st, st->private_name, sym_intern(st, raw));
    SymSymbol *sym = scope_find(sc, name);
    int val = flag;
    if (sym) {
        if ((flag & SYM_DEF_PARAM) && (sym->flags & SYM_DEF_PARAM)) {
            sym_error(st, l.lineno, l.col_offset, l.end_lineno, l.end_col_offset,
                      "duplicate argument '%s' in function definition", raw);
            return false;
        }
        val = sym->flags | flag;
    }
    if (sc->comp_iter_target) {
        /* an iteration variable: it may not rebind a walrus target of this comprehension */
        if (val & (SYM_DEF_GLOBAL | SYM_DEF_NONLOCAL)) {
            sym_error(st, l.lineno, l.col_offset, l.end_lineno, l.end_col_offset,
                      "comprehension inner loop cannot rebind assignment expression target '%s'", raw);
            return false;
        }
        val |= SYM_DEF_COMP_ITER;
    }
    if (sym) sym->flags = val;
    else if (!(sym = scope_add(st, sc, name, val))) return false;
    if (flag & SYM_DEF_PARAM) {
        /* the parameter list is kept by the caller (visit_params) */
    } else if (flag & SYM_DEF_GLOBAL) { /* a global statement also marks the module's symbol */
        SymSymbol *g = scope_find(st->top, name);
        if (g) g->flags |= flag;
        else if (!scope_add(st, st->top, name, flag)) return false;
    }
    return true;
}

static bool add_def(SymTable *st, const char *name, int flag, Loc l) {
    return add_def_in(st, st->cur, name, flag, l);
}

static ScopeImpl *new_scope(SymTable *st, SymBlockType type, const char *name, const void *node,
                            Loc l, int firstlineno) {
    ScopeImpl *sc = ast_arena_alloc(st->arena, sizeof *sc);
    if (!sc) {
        st->failed = true;
        return NULL;
    }
    sc->table = st;
    sc->pub.type = type;
    sc->pub.name = sym_intern(st, name);
    sc->pub.node = node;
    sc->pub.lineno = l.lineno;
    sc->pub.col_offset = l.col_offset;
    sc->pub.firstlineno = firstlineno;
    ScopeImpl *prev = st->cur;
    if (prev && (prev->pub.is_nested || prev->pub.type == SYM_BLOCK_FUNCTION)) sc->pub.is_nested = true;
    return sc;
}

/* symtable_enter_block */
static bool enter_block(SymTable *st, SymBlockType type, const char *name, const void *node, Loc l,
                        int firstlineno) {
    ScopeImpl *sc = new_scope(st, type, name, node, l, firstlineno);
    if (!sc) return false;
    ScopeImpl *prev = st->cur;
    sc->pub.parent = &prev->pub;
    if (prev->pub.nchildren == prev->child_cap) {
        size_t cap = prev->child_cap ? prev->child_cap * 2 : 4;
        SymScope **ch = ast_arena_alloc(st->arena, cap * sizeof *ch);
        if (!ch) {
            st->failed = true;
            return false;
        }
        if (prev->pub.nchildren) memcpy(ch, prev->pub.children, prev->pub.nchildren * sizeof *ch);
        prev->pub.children = ch;
        prev->child_cap = cap;
    }
    prev->pub.children[prev->pub.nchildren++] = &sc->pub;
    if (node && !sym_map_node(st, node, &sc->pub)) {
        st->failed = true;
        return false;
    }
    st->cur = sc;
    return true;
}

static void exit_block(SymTable *st) { st->cur = (ScopeImpl *)st->cur->pub.parent; }

static bool add_param(SymTable *st, const AstArg *a, SymParamKind kind) {
    if (!add_def(st, a->arg, SYM_DEF_PARAM, LOC(a))) return false;
    ScopeImpl *sc = st->cur;
    if (sc->pub.nparams == sc->param_cap) {
        size_t cap = sc->param_cap ? sc->param_cap * 2 : 4;
        SymParam *ps = ast_arena_alloc(st->arena, cap * sizeof *ps);
        if (!ps) {
            st->failed = true;
            return false;
        }
        if (sc->pub.nparams) memcpy(ps, sc->pub.params, sc->pub.nparams * sizeof *ps);
        sc->pub.params = ps;
        sc->param_cap = cap;
    }
    SymParam *p = &sc->pub.params[sc->pub.nparams++];
    p->name = sym_mangle(st, st->private_name, sym_intern(st, a->arg));
    p->kind = kind;
    return true;
}

/* symtable_visit_arguments: posonly, args, kwonly, then *args and **kwargs */
static bool visit_arguments(SymTable *st, const AstArguments *a) {
    for (size_t i = 0; i < a->posonlyargs.count; i++)
        if (!add_param(st, a->posonlyargs.items[i], SYM_PARAM_POSONLY)) return false;
    for (size_t i = 0; i < a->args.count; i++)
        if (!add_param(st, a->args.items[i], SYM_PARAM_POSITIONAL)) return false;
    for (size_t i = 0; i < a->kwonlyargs.count; i++)
        if (!add_param(st, a->kwonlyargs.items[i], SYM_PARAM_KWONLY)) return false;
    if (a->vararg) {
        if (!add_param(st, a->vararg, SYM_PARAM_VARARG)) return false;
        st->cur->pub.has_varargs = true;
    }
    if (a->kwarg) {
        if (!add_param(st, a->kwarg, SYM_PARAM_KWARG)) return false;
        st->cur->pub.has_varkw = true;
    }
    SymScope *s = &st->cur->pub;
    s->posonlyargcount = (int)a->posonlyargs.count;
    s->argcount = (int)(a->posonlyargs.count + a->args.count);
    s->kwonlyargcount = (int)a->kwonlyargs.count;
    /* keep the source order (posonly, args, *vararg, kwonly, **kwarg) in params */
    if (a->vararg && a->kwonlyargs.count) {
        size_t k = a->posonlyargs.count + a->args.count, nk = a->kwonlyargs.count;
        SymParam var = s->params[k + nk];
        memmove(&s->params[k + 1], &s->params[k], nk * sizeof var);
        s->params[k] = var;
    }
    return true;
}

/* Under `from __future__ import annotations` CPython visits an annotation in a block of its
 * own (AnnotationBlock): its names bind nothing in the enclosing scope, and a walrus, yield
 * or await evaluated in that block itself (not inside a lambda's body or a comprehension
 * past its first iterator) is an error.  Nothing else of it matters: it becomes a string. */
static bool check_future_annotation(SymTable *st, const AstExpr *e);

static bool check_future_annotations(SymTable *st, AstExprSeq seq) {
    for (size_t i = 0; i < seq.count; i++)
        if (seq.items[i] && !check_future_annotation(st, seq.items[i])) return false;
    return true;
}

static bool check_future_annotation(SymTable *st, const AstExpr *e) {
    const char *what = NULL;
    switch (e->kind) {
    case AST_EXPR_NAMED_EXPR: what = "named expression"; break;
    case AST_EXPR_YIELD:
    case AST_EXPR_YIELD_FROM: what = "yield expression"; break;
    case AST_EXPR_AWAIT: what = "await expression"; break;
    default: break;
    }
    if (what) {
        sym_error(st, e->lineno, e->col_offset, e->end_lineno, e->end_col_offset,
                  "'%s' can not be used within an annotation", what);
        return false;
    }
    const AstExpr *kids[3] = {NULL, NULL, NULL};
    switch (e->kind) {
    case AST_EXPR_BOOL_OP: return check_future_annotations(st, e->v.BoolOp.values);
    case AST_EXPR_BIN_OP: kids[0] = e->v.BinOp.left, kids[1] = e->v.BinOp.right; break;
    case AST_EXPR_UNARY_OP: kids[0] = e->v.UnaryOp.operand; break;
    case AST_EXPR_LAMBDA:
        return check_future_annotations(st, e->v.Lambda.args->defaults) &&
               check_future_annotations(st, e->v.Lambda.args->kw_defaults);
    case AST_EXPR_IF_EXP: kids[0] = e->v.IfExp.test, kids[1] = e->v.IfExp.body, kids[2] = e->v.IfExp.orelse; break;
    case AST_EXPR_DICT:
        return check_future_annotations(st, e->v.Dict.keys) && check_future_annotations(st, e->v.Dict.values);
    case AST_EXPR_SET: return check_future_annotations(st, e->v.Set.elts);
    case AST_EXPR_LIST_COMP: kids[0] = e->v.ListComp.generators.items[0]->iter; break;
    case AST_EXPR_SET_COMP: kids[0] = e->v.SetComp.generators.items[0]->iter; break;
    case AST_EXPR_DICT_COMP: kids[0] = e->v.DictComp.generators.items[0]->iter; break;
    case AST_EXPR_GENERATOR_EXP: kids[0] = e->v.GeneratorExp.generators.items[0]->iter; break;
    case AST_EXPR_COMPARE:
        kids[0] = e->v.Compare.left;
        return check_future_annotation(st, kids[0]) && check_future_annotations(st, e->v.Compare.comparators);
    case AST_EXPR_CALL:
        if (!check_future_annotation(st, e->v.Call.func) || !check_future_annotations(st, e->v.Call.args)) return false;
        for (size_t i = 0; i < e->v.Call.keywords.count; i++)
            if (!check_future_annotation(st, e->v.Call.keywords.items[i]->value)) return false;
        return true;
    case AST_EXPR_FORMATTED_VALUE: kids[0] = e->v.FormattedValue.value, kids[1] = e->v.FormattedValue.format_spec; break;
    case AST_EXPR_JOINED_STR: return check_future_annotations(st, e->v.JoinedStr.values);
    case AST_EXPR_ATTRIBUTE: kids[0] = e->v.Attribute.value; break;
    case AST_EXPR_SUBSCRIPT: kids[0] = e->v.Subscript.value, kids[1] = e->v.Subscript.slice; break;
    case AST_EXPR_STARRED: kids[0] = e->v.Starred.value; break;
    case AST_EXPR_LIST: return check_future_annotations(st, e->v.List.elts);
    case AST_EXPR_TUPLE: return check_future_annotations(st, e->v.Tuple.elts);
    case AST_EXPR_SLICE: kids[0] = e->v.Slice.lower, kids[1] = e->v.Slice.upper, kids[2] = e->v.Slice.step; break;
    default: break;
    }
    for (int i = 0; i < 3; i++)
        if (kids[i] && !check_future_annotation(st, kids[i])) return false;
    return true;
}

static bool visit_annotation(SymTable *st, const AstExpr *e) {
    if (st->future_annotations) return check_future_annotation(st, e); /* it becomes a string */
    return visit_expr(st, e);
}

/* symtable_visit_annotations: posonly, args, *vararg, **kwarg, kwonly, then the return */
static bool visit_annotations(SymTable *st, const AstArguments *a, const AstExpr *returns) {
    const AstArgSeq *first[2] = {&a->posonlyargs, &a->args};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < first[k]->count; i++)
            if (first[k]->items[i]->annotation && !visit_annotation(st, first[k]->items[i]->annotation))
                return false;
    if (a->vararg && a->vararg->annotation && !visit_annotation(st, a->vararg->annotation)) return false;
    if (a->kwarg && a->kwarg->annotation && !visit_annotation(st, a->kwarg->annotation)) return false;
    for (size_t i = 0; i < a->kwonlyargs.count; i++)
        if (a->kwonlyargs.items[i]->annotation && !visit_annotation(st, a->kwonlyargs.items[i]->annotation))
            return false;
    return !returns || visit_annotation(st, returns);
}

static int first_line(const AstStmt *s, AstExprSeq decorators) {
    return decorators.count ? decorators.items[0]->lineno : s->lineno;
}

static bool visit_function(SymTable *st, const AstStmt *s) {
    const AstArguments *a = s->v.FunctionDef.args;
    bool is_async = s->kind == AST_STMT_ASYNC_FUNCTION_DEF;
    if (!add_def(st, s->v.FunctionDef.name, SYM_DEF_LOCAL, LOC(s)) || !visit_exprs(st, a->defaults) ||
        !visit_exprs(st, a->kw_defaults) || !visit_annotations(st, a, s->v.FunctionDef.returns) ||
        !visit_exprs(st, s->v.FunctionDef.decorator_list))
        return false;
    if (!enter_block(st, SYM_BLOCK_FUNCTION, s->v.FunctionDef.name, s, LOC(s),
                     first_line(s, s->v.FunctionDef.decorator_list)))
        return false;
    st->cur->pub.private_name = st->private_name;
    if (is_async) st->cur->pub.is_coroutine = true;
    if (!visit_arguments(st, a) || !visit_stmts(st, s->v.FunctionDef.body)) return false;
    exit_block(st);
    return true;
}

static bool visit_class(SymTable *st, const AstStmt *s) {
    if (!add_def(st, s->v.ClassDef.name, SYM_DEF_LOCAL, LOC(s)) || !visit_exprs(st, s->v.ClassDef.bases))
        return false;
    for (size_t i = 0; i < s->v.ClassDef.keywords.count; i++)
        if (!visit_expr(st, s->v.ClassDef.keywords.items[i]->value)) return false;
    if (!visit_exprs(st, s->v.ClassDef.decorator_list)) return false;
    if (!enter_block(st, SYM_BLOCK_CLASS, s->v.ClassDef.name, s, LOC(s),
                     first_line(s, s->v.ClassDef.decorator_list)))
        return false;
    const char *saved = st->private_name;
    st->private_name = sym_intern(st, s->v.ClassDef.name);
    st->cur->pub.private_name = st->private_name;
    bool ok = visit_stmts(st, s->v.ClassDef.body);
    st->private_name = saved;
    if (ok) exit_block(st);
    return ok;
}

static bool visit_ann_assign(SymTable *st, const AstStmt *s) {
    const AstExpr *t = s->v.AnnAssign.target;
    if (t->kind == AST_EXPR_NAME) {
        const char *name = sym_mangle(st, st->private_name, sym_intern(st, t->v.Name.id));
        SymSymbol *cur = scope_find(st->cur, name);
        int flags = cur ? cur->flags : 0;
        if ((flags & (SYM_DEF_GLOBAL | SYM_DEF_NONLOCAL)) && st->cur != st->top && s->v.AnnAssign.simple) {
            sym_error(st, s->lineno, s->col_offset, s->end_lineno, s->end_col_offset,
                      flags & SYM_DEF_GLOBAL ? "annotated name '%s' can't be global"
                                             : "annotated name '%s' can't be nonlocal",
                      t->v.Name.id);
            return false;
        }
        if (s->v.AnnAssign.simple) {
            if (!add_def(st, t->v.Name.id, SYM_DEF_ANNOT | SYM_DEF_LOCAL, LOC(t))) return false;
        } else if (s->v.AnnAssign.value && !add_def(st, t->v.Name.id, SYM_DEF_LOCAL, LOC(t))) {
            return false;
        }
    } else if (!visit_expr(st, t)) {
        return false;
    }
    if (!visit_annotation(st, s->v.AnnAssign.annotation)) return false;
    return !s->v.AnnAssign.value || visit_expr(st, s->v.AnnAssign.value);
}

static bool record_directive_at(SymTable *st, const char *name, Loc l) {
    ScopeImpl *sc = st->cur;
    if (sc->ndirectives == sc->directive_cap) {
        size_t cap = sc->directive_cap ? sc->directive_cap * 2 : 4;
        SymDirective *d = realloc(sc->directives, cap * sizeof *d);
        if (!d) {
            st->failed = true;
            return false;
        }
        sc->directives = d;
        sc->directive_cap = cap;
    }
    SymDirective d = {name, l.lineno, l.col_offset, l.end_lineno, l.end_col_offset};
    sc->directives[sc->ndirectives++] = d;
    return true;
}

static bool record_directive(SymTable *st, const char *name, const AstStmt *s) {
    return record_directive_at(st, name, LOC(s));
}

void sym_error_at_directive(SymTable *st, ScopeImpl *sc, const char *name, const char *fmt) {
    for (size_t i = 0; i < sc->ndirectives; i++) {
        const SymDirective *d = &sc->directives[i];
        if (d->name != name) continue;
        sym_error(st, d->lineno, d->col_offset, d->end_lineno, d->end_col_offset, fmt, name);
        return;
    }
    sym_error(st, 0, -1, 0, -1, fmt, name);
}

/* global / nonlocal statements */
static bool visit_global(SymTable *st, const AstStmt *s, bool nonlocal) {
    AstIdentSeq names = nonlocal ? s->v.Nonlocal.names : s->v.Global.names;
    for (size_t i = 0; i < names.count; i++) {
        const char *raw = names.items[i];
        const char *name = sym_mangle(st, st->private_name, sym_intern(st, raw));
        SymSymbol *cur = scope_find(st->cur, name);
        int flags = cur ? cur->flags : 0;
        if (flags & (SYM_DEF_PARAM | SYM_DEF_LOCAL | SYM_USE | SYM_DEF_ANNOT)) {
            const char *msg;
            if (flags & SYM_DEF_PARAM) msg = nonlocal ? "name '%s' is parameter and nonlocal" : "name '%s' is parameter and global";
            else if (flags & SYM_USE) msg = nonlocal ? "name '%s' is used prior to nonlocal declaration" : "name '%s' is used prior to global declaration";
            else if (flags & SYM_DEF_ANNOT) msg = nonlocal ? "annotated name '%s' can't be nonlocal" : "annotated name '%s' can't be global";
            else msg = nonlocal ? "name '%s' is assigned to before nonlocal declaration" : "name '%s' is assigned to before global declaration";
            sym_error(st, s->lineno, s->col_offset, s->end_lineno, s->end_col_offset, msg, raw);
            return false;
        }
        if (!add_def(st, raw, nonlocal ? SYM_DEF_NONLOCAL : SYM_DEF_GLOBAL, LOC(s))) return false;
        if (!record_directive(st, name, s)) return false;
    }
    return true;
}

/* symtable_visit_alias */
static bool visit_alias(SymTable *st, const AstAlias *a) {
    const char *name = a->asname ? a->asname : a->name;
    if (strcmp(name, "*") == 0) {
        if (st->cur->pub.type != SYM_BLOCK_MODULE) {
            sym_error(st, a->lineno, a->col_offset, a->end_lineno, a->end_col_offset,
                      "import * only allowed at module level%s", "");
            return false;
        }
        return true;
    }
    const char *dot = strchr(name, '.');
    if (!dot) return add_def(st, name, SYM_DEF_IMPORT, LOC(a));
    char buf[256];
    size_t n = (size_t)(dot - name);
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, name, n);
    buf[n] = '\0';
    return add_def(st, buf, SYM_DEF_IMPORT, LOC(a));
}

static bool visit_stmt_body(SymTable *st, const AstStmt *s) {
    switch (s->kind) {
    case AST_STMT_FUNCTION_DEF:
    case AST_STMT_ASYNC_FUNCTION_DEF: return visit_function(st, s);
    case AST_STMT_CLASS_DEF: return visit_class(st, s);
    case AST_STMT_RETURN:
        if (!s->v.Return.value) return true;
        st->cur->pub.returns_value = true;
        return visit_expr(st, s->v.Return.value);
    case AST_STMT_DELETE: return visit_exprs(st, s->v.Delete.targets);
    case AST_STMT_ASSIGN:
        return visit_exprs(st, s->v.Assign.targets) && visit_expr(st, s->v.Assign.value);
    case AST_STMT_ANN_ASSIGN: return visit_ann_assign(st, s);
    case AST_STMT_AUG_ASSIGN:
        return visit_expr(st, s->v.AugAssign.target) && visit_expr(st, s->v.AugAssign.value);
    case AST_STMT_FOR:
    case AST_STMT_ASYNC_FOR:
        return visit_expr(st, s->v.For.target) && visit_expr(st, s->v.For.iter) &&
               visit_stmts(st, s->v.For.body) && visit_stmts(st, s->v.For.orelse);
    case AST_STMT_WHILE:
        return visit_expr(st, s->v.While.test) && visit_stmts(st, s->v.While.body) &&
               visit_stmts(st, s->v.While.orelse);
    case AST_STMT_IF:
        return visit_expr(st, s->v.If.test) && visit_stmts(st, s->v.If.body) &&
               visit_stmts(st, s->v.If.orelse);
    case AST_STMT_RAISE:
        if (!s->v.Raise.exc) return true;
        return visit_expr(st, s->v.Raise.exc) && (!s->v.Raise.cause || visit_expr(st, s->v.Raise.cause));
    case AST_STMT_TRY:
        if (!visit_stmts(st, s->v.Try.body) || !visit_stmts(st, s->v.Try.orelse)) return false;
        for (size_t i = 0; i < s->v.Try.handlers.count; i++) {
            const AstExceptHandler *h = s->v.Try.handlers.items[i];
            if (h->type && !visit_expr(st, h->type)) return false;
            if (h->name && !add_def(st, h->name, SYM_DEF_LOCAL, LOC(h))) return false;
            if (!visit_stmts(st, h->body)) return false;
        }
        return visit_stmts(st, s->v.Try.finalbody);
    case AST_STMT_ASSERT:
        return visit_expr(st, s->v.Assert.test) && (!s->v.Assert.msg || visit_expr(st, s->v.Assert.msg));
    case AST_STMT_IMPORT:
        for (size_t i = 0; i < s->v.Import.names.count; i++)
            if (!visit_alias(st, s->v.Import.names.items[i])) return false;
        return true;
    case AST_STMT_IMPORT_FROM:
        for (size_t i = 0; i < s->v.ImportFrom.names.count; i++)
            if (!visit_alias(st, s->v.ImportFrom.names.items[i])) return false;
        return true;
    case AST_STMT_GLOBAL: return visit_global(st, s, false);
    case AST_STMT_NONLOCAL: return visit_global(st, s, true);
    case AST_STMT_EXPR: return visit_expr(st, s->v.Expr.value);
    case AST_STMT_WITH:
    case AST_STMT_ASYNC_WITH:
        for (size_t i = 0; i < s->v.With.items.count; i++) {
            const AstWithItem *w = s->v.With.items.items[i];
            if (!visit_expr(st, w->context_expr)) return false;
            if (w->optional_vars && !visit_expr(st, w->optional_vars)) return false;
        }
        return visit_stmts(st, s->v.With.body);
    case AST_STMT_MATCH:
        if (!visit_expr(st, s->v.Match.subject)) return false;
        for (size_t i = 0; i < s->v.Match.cases.count; i++) {
            const AstMatchCase *m = s->v.Match.cases.items[i];
            if (!visit_pattern(st, m->pattern) || (m->guard && !visit_expr(st, m->guard)) || !visit_stmts(st, m->body))
                return false;
        }
        return true;
    case AST_STMT_PASS:
    case AST_STMT_BREAK:
    case AST_STMT_CONTINUE:
    case AST_STMT__COUNT: return true;
    }
    return true;
}

static bool visit_stmt(SymTable *st, const AstStmt *s) {
    if (++st->depth > SYM_MAX_DEPTH) {
        sym_error(st, s->lineno, s->col_offset, s->end_lineno, s->end_col_offset,
                  "maximum recursion depth exceeded during compilation%s", "");
        return false;
    }
    bool ok = visit_stmt_body(st, s);
    st->depth--;
    return ok;
}

/* symtable_visit_pattern: captures bind in the current scope */
static bool visit_pattern(SymTable *st, const AstPattern *p);

static bool visit_patterns(SymTable *st, AstPatternSeq seq) {
    for (size_t i = 0; i < seq.count; i++)
        if (!visit_pattern(st, seq.items[i])) return false;
    return true;
}

static bool visit_pattern(SymTable *st, const AstPattern *p) {
    switch (p->kind) {
    case AST_PAT_MATCH_VALUE: return visit_expr(st, p->v.MatchValue.value);
    case AST_PAT_MATCH_SINGLETON: return true;
    case AST_PAT_MATCH_SEQUENCE: return visit_patterns(st, p->v.MatchSequence.patterns);
    case AST_PAT_MATCH_STAR: return !p->v.MatchStar.name || add_def(st, p->v.MatchStar.name, SYM_DEF_LOCAL, LOC(p));
    case AST_PAT_MATCH_MAPPING:
        return visit_exprs(st, p->v.MatchMapping.keys) && visit_patterns(st, p->v.MatchMapping.patterns) &&
               (!p->v.MatchMapping.rest || add_def(st, p->v.MatchMapping.rest, SYM_DEF_LOCAL, LOC(p)));
    case AST_PAT_MATCH_CLASS:
        return visit_expr(st, p->v.MatchClass.cls) && visit_patterns(st, p->v.MatchClass.patterns) &&
               visit_patterns(st, p->v.MatchClass.kwd_patterns);
    case AST_PAT_MATCH_AS:
        return (!p->v.MatchAs.pattern || visit_pattern(st, p->v.MatchAs.pattern)) &&
               (!p->v.MatchAs.name || add_def(st, p->v.MatchAs.name, SYM_DEF_LOCAL, LOC(p)));
    case AST_PAT_MATCH_OR: return visit_patterns(st, p->v.MatchOr.patterns);
    case AST_PAT__COUNT: break;
    }
    return true;
}

/* symtable_handle_comprehension */
static bool visit_comprehension(SymTable *st, const AstExpr *e, const char *name,
                                SymComprehension kind, AstComprehensionSeq gens,
                                const AstExpr *elt, const AstExpr *value) {
    const AstComprehension *outer = gens.items[0];
    st->cur->comp_iter_expr++; /* the outermost iterable is evaluated in the current scope */
    bool iter_ok = visit_expr(st, outer->iter);
    st->cur->comp_iter_expr--;
    if (!iter_ok) return false;
    if (!enter_block(st, SYM_BLOCK_FUNCTION, name, e, LOC(e), e->lineno)) return false;
    ScopeImpl *sc = st->cur;
    sc->pub.private_name = st->private_name;
    sc->pub.comprehension = kind;
    if (outer->is_async) sc->pub.is_coroutine = true;
    AstArg implicit = {".0", NULL, e->lineno, e->col_offset, e->end_lineno, e->end_col_offset};
    if (!add_param(st, &implicit, SYM_PARAM_POSITIONAL)) return false;
    sc->pub.argcount = 1;
    sc->comp_iter_target = true;
    if (!visit_expr(st, outer->target)) return false;
    sc->comp_iter_target = false;
    if (!visit_exprs(st, outer->ifs)) return false;
    for (size_t i = 1; i < gens.count; i++) {
        const AstComprehension *g = gens.items[i];
        sc->comp_iter_target = true;
        if (!visit_expr(st, g->target)) return false;
        sc->comp_iter_target = false;
        sc->comp_iter_expr++;
        iter_ok = visit_expr(st, g->iter);
        sc->comp_iter_expr--;
        if (!iter_ok || !visit_exprs(st, g->ifs)) return false;
        if (g->is_async) sc->pub.is_coroutine = true;
    }
    if (value && !visit_expr(st, value)) return false;
    if (!visit_expr(st, elt)) return false;
    sc->pub.is_generator = kind == SYM_COMP_GENEXPR;
    /* an awaiting list/set/dict comprehension is awaited by its enclosing scope */
    bool awaits = sc->pub.is_coroutine && !sc->pub.is_generator;
    exit_block(st);
    if (awaits) st->cur->pub.is_coroutine = true;
    return true;
}

static const char *const comp_messages[] = {
    [SYM_COMP_LIST] = "'yield' inside list comprehension",
    [SYM_COMP_SET] = "'yield' inside set comprehension",
    [SYM_COMP_DICT] = "'yield' inside dict comprehension",
    [SYM_COMP_GENEXPR] = "'yield' inside generator expression",
};

static bool visit_yield(SymTable *st, const AstExpr *e, const AstExpr *value) {
    if (value && !visit_expr(st, value)) return false;
    st->cur->pub.is_generator = true;
    if (st->cur->pub.comprehension != SYM_COMP_NONE) {
        sym_error(st, e->lineno, e->col_offset, e->end_lineno, e->end_col_offset, "%s",
                  comp_messages[st->cur->pub.comprehension]);
        return false;
    }
    return true;
}

static bool visit_lambda(SymTable *st, const AstExpr *e) {
    const AstArguments *a = e->v.Lambda.args;
    if (!visit_exprs(st, a->defaults) || !visit_exprs(st, a->kw_defaults)) return false;
    if (!enter_block(st, SYM_BLOCK_FUNCTION, "lambda", e, LOC(e), e->lineno)) return false;
    st->cur->pub.is_lambda = true;
    st->cur->pub.private_name = st->private_name;
    if (!visit_arguments(st, a) || !visit_expr(st, e->v.Lambda.body)) return false;
    exit_block(st);
    return true;
}

/* symtable_extend_namedexpr_scope: a walrus inside a comprehension binds its target in the
 * nearest enclosing function (as nonlocal there) or module (as global), never in a class. */
static bool extend_namedexpr_scope(SymTable *st, const AstExpr *target) {
    const char *raw = target->v.Name.id;
    const char *name = sym_mangle(st, st->private_name, sym_intern(st, raw));
    Loc l = LOC(target);
    for (ScopeImpl *sc = st->cur; sc; sc = (ScopeImpl *)sc->pub.parent) {
        if (sc->pub.comprehension != SYM_COMP_NONE) {
            SymSymbol *sym = scope_find(sc, name);
            if (sym && (sym->flags & SYM_DEF_COMP_ITER)) {
                sym_error(st, l.lineno, l.col_offset, l.end_lineno, l.end_col_offset,
                          "assignment expression cannot rebind comprehension iteration variable '%s'", raw);
                return false;
            }
            continue;
        }
        if (sc->pub.type == SYM_BLOCK_FUNCTION) {
            SymSymbol *sym = scope_find(sc, name);
            int flag = sym && (sym->flags & SYM_DEF_GLOBAL) ? SYM_DEF_GLOBAL : SYM_DEF_NONLOCAL;
            return add_def(st, raw, flag, l) && record_directive_at(st, name, l) &&
                   add_def_in(st, sc, raw, SYM_DEF_LOCAL, l);
        }
        if (sc->pub.type == SYM_BLOCK_MODULE)
            return add_def(st, raw, SYM_DEF_GLOBAL, l) && record_directive_at(st, name, l) &&
                   add_def_in(st, sc, raw, SYM_DEF_GLOBAL, l);
        sym_error(st, l.lineno, l.col_offset, l.end_lineno, l.end_col_offset,
                  "assignment expression within a comprehension cannot be used in a class body%s", "");
        return false;
    }
    EM_UNREACHABLE();
}

/* symtable_handle_namedexpr */
static bool visit_named_expr(SymTable *st, const AstExpr *e) {
    if (st->cur->comp_iter_expr > 0) {
        sym_error(st, e->lineno, e->col_offset, e->end_lineno, e->end_col_offset,
                  "assignment expression cannot be used in a comprehension iterable expression%s", "");
        return false;
    }
    if (st->cur->pub.comprehension != SYM_COMP_NONE && !extend_namedexpr_scope(st, e->v.NamedExpr.target))
        return false;
    return visit_expr(st, e->v.NamedExpr.value) && visit_expr(st, e->v.NamedExpr.target);
}

static bool visit_name(SymTable *st, const AstExpr *e) {
    if (!add_def(st, e->v.Name.id, e->v.Name.ctx == AST_LOAD ? SYM_USE : SYM_DEF_LOCAL, LOC(e)))
        return false;
    /* super() counts as a use of __class__ */
    if (e->v.Name.ctx == AST_LOAD && st->cur->pub.type == SYM_BLOCK_FUNCTION &&
        strcmp(e->v.Name.id, "super") == 0)
        return add_def(st, "__class__", SYM_USE, LOC(e));
    return true;
}

static bool visit_expr_body(SymTable *st, const AstExpr *e) {
    switch (e->kind) {
    case AST_EXPR_BOOL_OP: return visit_exprs(st, e->v.BoolOp.values);
    case AST_EXPR_BIN_OP: return visit_expr(st, e->v.BinOp.left) && visit_expr(st, e->v.BinOp.right);
    case AST_EXPR_UNARY_OP: return visit_expr(st, e->v.UnaryOp.operand);
    case AST_EXPR_LAMBDA: return visit_lambda(st, e);
    case AST_EXPR_IF_EXP:
        return visit_expr(st, e->v.IfExp.test) && visit_expr(st, e->v.IfExp.body) &&
               visit_expr(st, e->v.IfExp.orelse);
    case AST_EXPR_DICT: return visit_exprs(st, e->v.Dict.keys) && visit_exprs(st, e->v.Dict.values);
    case AST_EXPR_SET: return visit_exprs(st, e->v.Set.elts);
    case AST_EXPR_GENERATOR_EXP:
        return visit_comprehension(st, e, "genexpr", SYM_COMP_GENEXPR, e->v.GeneratorExp.generators,
                                   e->v.GeneratorExp.elt, NULL);
    case AST_EXPR_LIST_COMP:
        return visit_comprehension(st, e, "listcomp", SYM_COMP_LIST, e->v.ListComp.generators,
                                   e->v.ListComp.elt, NULL);
    case AST_EXPR_SET_COMP:
        return visit_comprehension(st, e, "setcomp", SYM_COMP_SET, e->v.SetComp.generators,
                                   e->v.SetComp.elt, NULL);
    case AST_EXPR_DICT_COMP:
        return visit_comprehension(st, e, "dictcomp", SYM_COMP_DICT, e->v.DictComp.generators,
                                   e->v.DictComp.key, e->v.DictComp.value);
    case AST_EXPR_YIELD: return visit_yield(st, e, e->v.Yield.value);
    case AST_EXPR_YIELD_FROM: return visit_yield(st, e, e->v.YieldFrom.value);
    case AST_EXPR_COMPARE:
        return visit_expr(st, e->v.Compare.left) && visit_exprs(st, e->v.Compare.comparators);
    case AST_EXPR_CALL:
        if (!visit_expr(st, e->v.Call.func) || !visit_exprs(st, e->v.Call.args)) return false;
        for (size_t i = 0; i < e->v.Call.keywords.count; i++)
            if (!visit_expr(st, e->v.Call.keywords.items[i]->value)) return false;
        return true;
    case AST_EXPR_FORMATTED_VALUE:
        return visit_expr(st, e->v.FormattedValue.value) &&
               (!e->v.FormattedValue.format_spec || visit_expr(st, e->v.FormattedValue.format_spec));
    case AST_EXPR_JOINED_STR: return visit_exprs(st, e->v.JoinedStr.values);
    case AST_EXPR_CONSTANT: return true;
    case AST_EXPR_ATTRIBUTE: return visit_expr(st, e->v.Attribute.value);
    case AST_EXPR_SUBSCRIPT:
        return visit_expr(st, e->v.Subscript.value) && visit_expr(st, e->v.Subscript.slice);
    case AST_EXPR_STARRED: return visit_expr(st, e->v.Starred.value);
    case AST_EXPR_SLICE:
        return (!e->v.Slice.lower || visit_expr(st, e->v.Slice.lower)) &&
               (!e->v.Slice.upper || visit_expr(st, e->v.Slice.upper)) &&
               (!e->v.Slice.step || visit_expr(st, e->v.Slice.step));
    case AST_EXPR_NAME: return visit_name(st, e);
    case AST_EXPR_LIST: return visit_exprs(st, e->v.List.elts);
    case AST_EXPR_TUPLE: return visit_exprs(st, e->v.Tuple.elts);
    case AST_EXPR_NAMED_EXPR: return visit_named_expr(st, e);
    case AST_EXPR_AWAIT:
        if (!visit_expr(st, e->v.Await.value)) return false;
        st->cur->pub.is_coroutine = true;
        return true;
    case AST_EXPR__COUNT: break;
    }
    return true;
}

static bool visit_expr(SymTable *st, const AstExpr *e) {
    if (++st->depth > SYM_MAX_DEPTH) {
        sym_error(st, e->lineno, e->col_offset, e->end_lineno, e->end_col_offset,
                  "maximum recursion depth exceeded during compilation%s", "");
        return false;
    }
    bool ok = visit_expr_body(st, e);
    st->depth--;
    return ok;
}

bool sym_visit_module(SymTable *st, const AstModule *mod) {
    Loc l = {0, 0, 0, 0};
    ScopeImpl *top = new_scope(st, SYM_BLOCK_MODULE, "top", NULL, l, 1);
    if (!top) return false;
    st->top = st->cur = top;
    switch (mod->kind) {
    case AST_MOD_EXPRESSION: return visit_expr(st, mod->expr) && !st->failed;
    case AST_MOD_FUNCTION_TYPE: return !st->failed; /* never compiled: nothing to resolve */
    default: return visit_stmts(st, mod->body) && !st->failed;
    }
}
