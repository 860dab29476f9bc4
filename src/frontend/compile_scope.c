/* src/frontend/compile_scope.c — scope analysis for the compiler: which names are local,
 * global (explicit or implicit), free or cell in each scope (module, function, lambda, class,
 * comprehension), following CPython 3.11's symtable.c rules: class scopes are skipped when
 * resolving free variables, comprehensions are function scopes with a ".0" parameter,
 * methods that use super() or __class__ get the implicit __class__ cell of their class.
 *
 * Two passes: collect (bindings, uses, declarations, child scopes per AST node), then resolve
 * free names against enclosing function scopes.
 *
 * Symbols are keyed by their mangled names (mangle.h): each scope records the private name in
 * force in it (its class's name for a class body, the enclosing one for everything else), and
 * every name the walker meets is mangled with it before it is bound, used or declared. */
#include <stdlib.h>
#include <string.h>

#include "src/frontend/compile_internal.h"
#include "src/frontend/mangle.h"

enum { F_BOUND = 1, F_USED = 2, F_GLOBAL = 4, F_NONLOCAL = 8, F_PARAM = 16, F_FREE = 32, F_CELL = 64,
       F_IMPLICIT_GLOBAL = 128 };

typedef struct Sym {
    const char *name;
    int flags;
    int order;       /* first-seen order, for varnames */
    int decl_line, decl_col;   /* the global/nonlocal statement, for errors found later */
} Sym;

struct CScope {
    ScopeKind kind;
    const void *node;
    CScope *parent;
    CScope **children;
    size_t nchildren, cap_children;
    Sym *syms;
    size_t nsyms, cap_syms;
    int next_order;
    bool generator, nested, needs_class_closure, uses_super;
    const char *private_name;  /* the class name mangling uses here, NULL outside classes */
    const char **varnames, **cellvars, **freevars;
    size_t nvar, ncell, nfree;
};

struct ScopeTable {
    AstArena *arena;   /* the AST's: mangled names live as long as the tree */
    CScope *module;
    CScope **all;
    size_t nall, cap;
    char *error;
    int err_line, err_col;
    bool no_memory;
};

/* ---- construction -------------------------------------------------------------------------- */

static CScope *new_scope(ScopeTable *t, ScopeKind kind, const void *node, CScope *parent) {
    CScope *s = calloc(1, sizeof *s);
    s->kind = kind;
    s->node = node;
    s->parent = parent;
    s->nested = parent && (parent->kind == SK_FUNCTION || parent->nested);
    s->private_name = parent ? parent->private_name : NULL;
    if (parent) {
        if (parent->nchildren == parent->cap_children) {
            parent->cap_children = parent->cap_children ? parent->cap_children * 2 : 4;
            parent->children = realloc(parent->children, sizeof(CScope *) * parent->cap_children);
        }
        parent->children[parent->nchildren++] = s;
    }
    if (t->nall == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->all = realloc(t->all, sizeof(CScope *) * t->cap);
    }
    t->all[t->nall++] = s;
    return s;
}

static Sym *find_sym(const CScope *s, const char *name) {
    for (size_t i = 0; i < s->nsyms; i++)
        if (strcmp(s->syms[i].name, name) == 0) return &s->syms[i];
    return NULL;
}

static Sym *add_sym(CScope *s, const char *name, int flags) {
    Sym *y = find_sym(s, name);
    if (!y) {
        if (s->nsyms == s->cap_syms) {
            s->cap_syms = s->cap_syms ? s->cap_syms * 2 : 8;
            s->syms = realloc(s->syms, sizeof(Sym) * s->cap_syms);
        }
        y = &s->syms[s->nsyms++];
        y->name = name;
        y->flags = 0;
        y->order = s->next_order++;
        y->decl_line = y->decl_col = 0;
    }
    y->flags |= flags;
    return y;
}

typedef struct Walker {
    ScopeTable *t;
    CScope *cur;
} Walker;

static void set_error(Walker *w, int line, int col, const char *msg, const char *name) {
    if (w->t->error) return;
    char buf[512];
    snprintf(buf, sizeof buf, msg, name);
    w->t->error = strdup(buf);
    w->t->err_line = line;
    w->t->err_col = col + 1;
}

/* name as this scope knows it: mangled with the scope's private name */
static const char *mangled(Walker *w, const char *name) {
    const char *m = ast_mangle(w->t->arena, w->cur->private_name, name);
    if (m) return m;
    w->t->no_memory = true;
    return name;
}

static void bind(Walker *w, const char *raw, int line, int col) {
    const char *name = mangled(w, raw);
    Sym *y = find_sym(w->cur, name);
    if (y && (y->flags & F_GLOBAL) == 0 && (y->flags & F_NONLOCAL) == 0) {
        add_sym(w->cur, name, F_BOUND);
        return;
    }
    add_sym(w->cur, name, F_BOUND);
    (void)line;
    (void)col;
}

static void use(Walker *w, const char *name) { add_sym(w->cur, mangled(w, name), F_USED); }

static void visit_expr(Walker *w, const AstExpr *e);
static void visit_stmts(Walker *w, const AstStmtSeq *seq);

static void visit_exprs(Walker *w, const AstExprSeq *seq) {
    for (size_t i = 0; i < seq->count; i++)
        if (seq->items[i]) visit_expr(w, seq->items[i]);
}

static void visit_args_defaults(Walker *w, const AstArguments *a, bool annotations) {
    visit_exprs(w, &a->defaults);
    visit_exprs(w, &a->kw_defaults);
    if (!annotations) return;
    const AstArgSeq *seqs[3] = {&a->posonlyargs, &a->args, &a->kwonlyargs};
    for (int s = 0; s < 3; s++)
        for (size_t i = 0; i < seqs[s]->count; i++)
            if (seqs[s]->items[i]->annotation) visit_expr(w, seqs[s]->items[i]->annotation);
    if (a->vararg && a->vararg->annotation) visit_expr(w, a->vararg->annotation);
    if (a->kwarg && a->kwarg->annotation) visit_expr(w, a->kwarg->annotation);
}

/* A parameter is bound under its mangled name; CPython reports a duplicate by its written one. */
static void declare_param(Walker *w, const AstArg *arg) {
    const char *name = mangled(w, arg->arg);
    if (find_sym(w->cur, name))
        set_error(w, arg->lineno, arg->col_offset, "duplicate argument '%s' in function definition", arg->arg);
    add_sym(w->cur, name, F_BOUND | F_PARAM);
}

static void declare_params(Walker *w, const AstArguments *a) {
    const AstArgSeq *seqs[2] = {&a->posonlyargs, &a->args};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < seqs[s]->count; i++) declare_param(w, seqs[s]->items[i]);
    for (size_t i = 0; i < a->kwonlyargs.count; i++) declare_param(w, a->kwonlyargs.items[i]);
    /* CPython orders varnames: positional, keyword-only, *args, **kwargs */
    if (a->vararg) declare_param(w, a->vararg);
    if (a->kwarg) declare_param(w, a->kwarg);
}

static void visit_function(Walker *w, const void *node, const AstArguments *args, const AstStmtSeq *body,
                           const AstExpr *lambda_body) {
    CScope *s = new_scope(w->t, SK_FUNCTION, node, w->cur);
    CScope *saved = w->cur;
    w->cur = s;
    if (args) declare_params(w, args);
    if (body) visit_stmts(w, body);
    if (lambda_body) visit_expr(w, lambda_body);
    w->cur = saved;
}

static void visit_comprehension(Walker *w, const AstExpr *e, const AstComprehensionSeq *gens, const AstExpr *elt,
                                const AstExpr *val) {
    /* the outermost iterable is evaluated in the enclosing scope */
    visit_expr(w, gens->items[0]->iter);
    CScope *s = new_scope(w->t, SK_FUNCTION, e, w->cur);
    if (e->kind == AST_EXPR_GENERATOR_EXP) s->generator = true;
    CScope *saved = w->cur;
    w->cur = s;
    add_sym(s, ".0", F_BOUND | F_PARAM);
    for (size_t i = 0; i < gens->count; i++) {
        const AstComprehension *g = gens->items[i];
        if (i > 0) visit_expr(w, g->iter);
        visit_expr(w, g->target);
        visit_exprs(w, &g->ifs);
    }
    visit_expr(w, elt);
    if (val) visit_expr(w, val);
    w->cur = saved;
}

static void visit_target_names(Walker *w, const AstExpr *e) { visit_expr(w, e); }

static void visit_expr(Walker *w, const AstExpr *e) {
    switch (e->kind) {
    case AST_EXPR_NAMED_EXPR: break;   /* rejected by the parser */
    case AST_EXPR_BOOL_OP: visit_exprs(w, &e->v.BoolOp.values); break;
    case AST_EXPR_BIN_OP: visit_expr(w, e->v.BinOp.left); visit_expr(w, e->v.BinOp.right); break;
    case AST_EXPR_UNARY_OP: visit_expr(w, e->v.UnaryOp.operand); break;
    case AST_EXPR_LAMBDA:
        visit_args_defaults(w, e->v.Lambda.args, false);
        visit_function(w, e, e->v.Lambda.args, NULL, e->v.Lambda.body);
        break;
    case AST_EXPR_IF_EXP:
        visit_expr(w, e->v.IfExp.test);
        visit_expr(w, e->v.IfExp.body);
        visit_expr(w, e->v.IfExp.orelse);
        break;
    case AST_EXPR_DICT: visit_exprs(w, &e->v.Dict.keys); visit_exprs(w, &e->v.Dict.values); break;
    case AST_EXPR_SET: visit_exprs(w, &e->v.Set.elts); break;
    case AST_EXPR_LIST_COMP: visit_comprehension(w, e, &e->v.ListComp.generators, e->v.ListComp.elt, NULL); break;
    case AST_EXPR_SET_COMP: visit_comprehension(w, e, &e->v.SetComp.generators, e->v.SetComp.elt, NULL); break;
    case AST_EXPR_DICT_COMP:
        visit_comprehension(w, e, &e->v.DictComp.generators, e->v.DictComp.key, e->v.DictComp.value);
        break;
    case AST_EXPR_GENERATOR_EXP:
        visit_comprehension(w, e, &e->v.GeneratorExp.generators, e->v.GeneratorExp.elt, NULL);
        break;
    case AST_EXPR_YIELD:
        if (e->v.Yield.value) visit_expr(w, e->v.Yield.value);
        w->cur->generator = true;
        break;
    case AST_EXPR_YIELD_FROM:
        visit_expr(w, e->v.YieldFrom.value);
        w->cur->generator = true;
        break;
    case AST_EXPR_COMPARE: visit_expr(w, e->v.Compare.left); visit_exprs(w, &e->v.Compare.comparators); break;
    case AST_EXPR_CALL:
        visit_expr(w, e->v.Call.func);
        visit_exprs(w, &e->v.Call.args);
        for (size_t i = 0; i < e->v.Call.keywords.count; i++) visit_expr(w, e->v.Call.keywords.items[i]->value);
        break;
    case AST_EXPR_FORMATTED_VALUE:
        visit_expr(w, e->v.FormattedValue.value);
        if (e->v.FormattedValue.format_spec) visit_expr(w, e->v.FormattedValue.format_spec);
        break;
    case AST_EXPR_JOINED_STR: visit_exprs(w, &e->v.JoinedStr.values); break;
    case AST_EXPR_CONSTANT: break;
    case AST_EXPR_ATTRIBUTE: visit_expr(w, e->v.Attribute.value); break;
    case AST_EXPR_SUBSCRIPT: visit_expr(w, e->v.Subscript.value); visit_expr(w, e->v.Subscript.slice); break;
    case AST_EXPR_STARRED: visit_expr(w, e->v.Starred.value); break;
    case AST_EXPR_NAME:
        if (e->v.Name.ctx == AST_LOAD) {
            use(w, e->v.Name.id);
            if (w->cur->kind == SK_FUNCTION && strcmp(e->v.Name.id, "super") == 0) w->cur->uses_super = true;
        } else {
            bind(w, e->v.Name.id, e->lineno, e->col_offset);
        }
        if (strcmp(e->v.Name.id, "__class__") == 0 && w->cur->kind == SK_FUNCTION) w->cur->uses_super = true;
        break;
    case AST_EXPR_LIST: visit_exprs(w, &e->v.List.elts); break;
    case AST_EXPR_TUPLE: visit_exprs(w, &e->v.Tuple.elts); break;
    case AST_EXPR_SLICE:
        if (e->v.Slice.lower) visit_expr(w, e->v.Slice.lower);
        if (e->v.Slice.upper) visit_expr(w, e->v.Slice.upper);
        if (e->v.Slice.step) visit_expr(w, e->v.Slice.step);
        break;
    }
}

static void declare_global(Walker *w, const AstStmt *s, const char *raw, bool nonlocal) {
    const char *name = mangled(w, raw);
    Sym *y = find_sym(w->cur, name);
    if (y) {
        const char *what = nonlocal ? "nonlocal" : "global";
        char msg[128];
        if (y->flags & F_PARAM)
            snprintf(msg, sizeof msg, "name '%%s' is parameter and %s", what);
        else if (y->flags & F_USED)
            snprintf(msg, sizeof msg, "name '%%s' is used prior to %s declaration", what);
        else if (y->flags & F_BOUND)
            snprintf(msg, sizeof msg, "name '%%s' is assigned to before %s declaration", what);
        else
            msg[0] = 0;
        if (msg[0] && !(y->flags & (F_GLOBAL | F_NONLOCAL))) set_error(w, s->lineno, s->col_offset, msg, raw);
    }
    if (nonlocal && w->cur->kind == SK_MODULE)
        set_error(w, s->lineno, s->col_offset, "nonlocal declaration not allowed at module level%s", "");
    Sym *d = add_sym(w->cur, name, nonlocal ? F_NONLOCAL : F_GLOBAL);
    if (!d->decl_line) {
        d->decl_line = s->lineno;
        d->decl_col = s->col_offset + 1;
    }
}

static void visit_stmt(Walker *w, const AstStmt *s) {
    switch (s->kind) {
    case AST_STMT_FUNCTION_DEF:
        visit_exprs(w, &s->v.FunctionDef.decorator_list);
        visit_args_defaults(w, s->v.FunctionDef.args, true);
        if (s->v.FunctionDef.returns) visit_expr(w, s->v.FunctionDef.returns);
        bind(w, s->v.FunctionDef.name, s->lineno, s->col_offset);
        visit_function(w, s, s->v.FunctionDef.args, &s->v.FunctionDef.body, NULL);
        break;
    case AST_STMT_CLASS_DEF: {
        visit_exprs(w, &s->v.ClassDef.decorator_list);
        visit_exprs(w, &s->v.ClassDef.bases);
        for (size_t i = 0; i < s->v.ClassDef.keywords.count; i++) visit_expr(w, s->v.ClassDef.keywords.items[i]->value);
        bind(w, s->v.ClassDef.name, s->lineno, s->col_offset);   /* with the enclosing private name */
        CScope *c = new_scope(w->t, SK_CLASS, s, w->cur);
        c->private_name = s->v.ClassDef.name;
        CScope *saved = w->cur;
        w->cur = c;
        visit_stmts(w, &s->v.ClassDef.body);
        w->cur = saved;
        break;
    }
    case AST_STMT_RETURN: if (s->v.Return.value) visit_expr(w, s->v.Return.value); break;
    case AST_STMT_DELETE: visit_exprs(w, &s->v.Delete.targets); break;
    case AST_STMT_ASSIGN: visit_expr(w, s->v.Assign.value); visit_exprs(w, &s->v.Assign.targets); break;
    case AST_STMT_AUG_ASSIGN: {
        const AstExpr *t = s->v.AugAssign.target;
        if (t->kind == AST_EXPR_NAME) {
            use(w, t->v.Name.id);
            bind(w, t->v.Name.id, t->lineno, t->col_offset);
        } else {
            visit_expr(w, t);
        }
        visit_expr(w, s->v.AugAssign.value);
        break;
    }
    case AST_STMT_ANN_ASSIGN:
        if (s->v.AnnAssign.value) visit_expr(w, s->v.AnnAssign.value);
        visit_target_names(w, s->v.AnnAssign.target);
        if (w->cur->kind != SK_FUNCTION) visit_expr(w, s->v.AnnAssign.annotation);
        break;
    case AST_STMT_FOR:
        visit_expr(w, s->v.For.iter);
        visit_expr(w, s->v.For.target);
        visit_stmts(w, &s->v.For.body);
        visit_stmts(w, &s->v.For.orelse);
        break;
    case AST_STMT_WHILE:
        visit_expr(w, s->v.While.test);
        visit_stmts(w, &s->v.While.body);
        visit_stmts(w, &s->v.While.orelse);
        break;
    case AST_STMT_IF:
        visit_expr(w, s->v.If.test);
        visit_stmts(w, &s->v.If.body);
        visit_stmts(w, &s->v.If.orelse);
        break;
    case AST_STMT_WITH:
        for (size_t i = 0; i < s->v.With.items.count; i++) {
            visit_expr(w, s->v.With.items.items[i]->context_expr);
            if (s->v.With.items.items[i]->optional_vars) visit_expr(w, s->v.With.items.items[i]->optional_vars);
        }
        visit_stmts(w, &s->v.With.body);
        break;
    case AST_STMT_RAISE:
        if (s->v.Raise.exc) visit_expr(w, s->v.Raise.exc);
        if (s->v.Raise.cause) visit_expr(w, s->v.Raise.cause);
        break;
    case AST_STMT_TRY:
        visit_stmts(w, &s->v.Try.body);
        for (size_t i = 0; i < s->v.Try.handlers.count; i++) {
            const AstExceptHandler *h = s->v.Try.handlers.items[i];
            if (h->type) visit_expr(w, h->type);
            if (h->name) bind(w, h->name, h->lineno, h->col_offset);
            visit_stmts(w, &h->body);
        }
        visit_stmts(w, &s->v.Try.orelse);
        visit_stmts(w, &s->v.Try.finalbody);
        break;
    case AST_STMT_ASSERT:
        visit_expr(w, s->v.Assert.test);
        if (s->v.Assert.msg) visit_expr(w, s->v.Assert.msg);
        break;
    case AST_STMT_IMPORT:
        for (size_t i = 0; i < s->v.Import.names.count; i++) {
            const AstAlias *a = s->v.Import.names.items[i];
            if (a->asname) {
                bind(w, a->asname, a->lineno, a->col_offset);
            } else {
                /* `import a.b` binds `a` (mangled: `import __a.b` binds `_C__a`) */
                const char *dot = strchr(a->name, '.');
                if (!dot) {
                    bind(w, a->name, a->lineno, a->col_offset);
                } else {
                    char *top = ast_arena_strndup(w->t->arena, a->name, (size_t)(dot - a->name));
                    if (top) bind(w, top, a->lineno, a->col_offset);
                    else w->t->no_memory = true;
                }
            }
        }
        break;
    case AST_STMT_IMPORT_FROM:
        for (size_t i = 0; i < s->v.ImportFrom.names.count; i++) {
            const AstAlias *a = s->v.ImportFrom.names.items[i];
            if (strcmp(a->name, "*") == 0) continue;
            bind(w, a->asname ? a->asname : a->name, a->lineno, a->col_offset);
        }
        break;
    case AST_STMT_GLOBAL:
        for (size_t i = 0; i < s->v.Global.names.count; i++) declare_global(w, s, s->v.Global.names.items[i], false);
        break;
    case AST_STMT_NONLOCAL:
        for (size_t i = 0; i < s->v.Nonlocal.names.count; i++) declare_global(w, s, s->v.Nonlocal.names.items[i], true);
        break;
    case AST_STMT_EXPR: visit_expr(w, s->v.Expr.value); break;
    case AST_STMT_PASS:
    case AST_STMT_BREAK:
    case AST_STMT_CONTINUE: break;
    }
}

static void visit_stmts(Walker *w, const AstStmtSeq *seq) {
    for (size_t i = 0; i < seq->count; i++) visit_stmt(w, seq->items[i]);
}

/* ---- resolution ------------------------------------------------------------------------------ */

static bool is_local(const Sym *y) {
    return y && (y->flags & F_BOUND) && !(y->flags & (F_GLOBAL | F_NONLOCAL));
}

/* Find the function scope (skipping classes) that binds name, walking outwards from s. */
static CScope *binding_scope(CScope *s, const char *name) {
    for (CScope *p = s->parent; p; p = p->parent) {
        if (p->kind == SK_MODULE) return NULL;
        if (p->kind == SK_CLASS) continue;
        Sym *y = find_sym(p, name);
        if (y && (y->flags & F_GLOBAL)) return NULL;
        if (is_local(y) || (y && (y->flags & F_CELL))) return p;
        if (y && (y->flags & F_NONLOCAL)) continue;
    }
    return NULL;
}

/* Mark name free in s and every scope between s and its binding scope b, cell in b. */
static void make_free(CScope *s, CScope *b, const char *name) {
    for (CScope *p = s; p && p != b; p = p->parent) {
        Sym *y = add_sym(p, name, 0);
        y->flags |= F_FREE;
    }
    Sym *y = find_sym(b, name);
    if (y) y->flags |= F_CELL;
}

static void resolve(ScopeTable *t, CScope *s) {
    for (size_t i = 0; i < s->nsyms; i++) {
        Sym *y = &s->syms[i];
        const char *name = y->name;
        if (y->flags & F_GLOBAL) continue;
        if (y->flags & F_NONLOCAL) {
            CScope *b = binding_scope(s, name);
            if (!b) {
                if (!t->error) {
                    char buf[256];
                    snprintf(buf, sizeof buf, "no binding for nonlocal '%s' found", name);
                    t->error = strdup(buf);
                    t->err_line = y->decl_line ? y->decl_line : 1;
                    t->err_col = y->decl_line ? y->decl_col : 1;
                }
                continue;
            }
            make_free(s, b, name);
            continue;
        }
        if (is_local(y) && s->kind != SK_CLASS) continue;
        if (s->kind == SK_MODULE) continue;
        if (is_local(y)) continue;   /* class-level binding: a NAME */
        if (y->flags & F_USED) {
            CScope *b = binding_scope(s, name);
            if (b) make_free(s, b, name);
            else y->flags |= F_IMPLICIT_GLOBAL;
        }
    }
    /* methods using super() / __class__ close over their class's __class__ cell */
    if (s->kind == SK_FUNCTION && s->uses_super) {
        CScope *cls = NULL;
        for (CScope *p = s->parent; p; p = p->parent)
            if (p->kind == SK_CLASS) {
                cls = p;
                break;
            } else if (p->kind == SK_MODULE) {
                break;
            }
        if (cls) {
            add_sym(cls, "__class__", F_CELL);
            cls->needs_class_closure = true;
            for (CScope *p = s; p != cls; p = p->parent) add_sym(p, "__class__", F_FREE);
        }
    }
    for (size_t i = 0; i < s->nchildren; i++) resolve(t, s->children[i]);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void finish(CScope *s) {
    /* varnames: parameters in declaration order, then other locals in first-seen order (cells
     * that are not parameters live only in cellvars); cells and frees sorted, as CPython */
    s->varnames = calloc(s->nsyms + 1, sizeof(char *));
    s->cellvars = calloc(s->nsyms + 1, sizeof(char *));
    s->freevars = calloc(s->nsyms + 1, sizeof(char *));
    for (size_t i = 0; i < s->nsyms; i++)
        if (s->kind == SK_FUNCTION && (s->syms[i].flags & F_PARAM)) s->varnames[s->nvar++] = s->syms[i].name;
    for (size_t i = 0; i < s->nsyms; i++) {
        Sym *y = &s->syms[i];
        if (s->kind == SK_FUNCTION && !(y->flags & F_PARAM) && is_local(y) && !(y->flags & F_CELL))
            s->varnames[s->nvar++] = y->name;
        if (y->flags & F_CELL) s->cellvars[s->ncell++] = y->name;
        else if (y->flags & F_FREE) s->freevars[s->nfree++] = y->name;
    }
    qsort(s->cellvars, s->ncell, sizeof(char *), cmp_str);
    qsort(s->freevars, s->nfree, sizeof(char *), cmp_str);
}

ScopeTable *cs_build(const AstModule *mod, AstArena *arena, char **error_msg, int *err_line, int *err_col) {
    ScopeTable *t = calloc(1, sizeof *t);
    t->arena = arena;
    t->module = new_scope(t, SK_MODULE, NULL, NULL);
    Walker w = {t, t->module};
    visit_stmts(&w, &mod->body);
    if (!t->error && !t->no_memory) resolve(t, t->module);
    if (t->no_memory) {
        *error_msg = NULL;   /* the caller raises MemoryError */
        cs_free(t);
        return NULL;
    }
    if (t->error) {
        *error_msg = t->error;
        *err_line = t->err_line;
        *err_col = t->err_col;
        t->error = NULL;
        cs_free(t);
        return NULL;
    }
    for (size_t i = 0; i < t->nall; i++) finish(t->all[i]);
    return t;
}

void cs_free(ScopeTable *t) {
    for (size_t i = 0; i < t->nall; i++) {
        CScope *s = t->all[i];
        free(s->syms);
        free(s->children);
        free(s->varnames);
        free(s->cellvars);
        free(s->freevars);
        free(s);
    }
    free(t->all);
    free(t->error);
    free(t);
}

CScope *cs_module(ScopeTable *t) { return t->module; }

CScope *cs_for_node(ScopeTable *t, const void *node) {
    for (size_t i = 0; i < t->nall; i++)
        if (t->all[i]->node == node) return t->all[i];
    return NULL;
}

ScopeKind cs_kind(const CScope *s) { return s->kind; }
bool cs_is_generator(const CScope *s) { return s->generator; }
bool cs_is_nested(const CScope *s) { return s->nested; }
bool cs_needs_class_closure(const CScope *s) { return s->needs_class_closure; }
const char *cs_private_name(const CScope *s) { return s->private_name; }

/* name: as the symbols know it, i.e. already mangled */
NameScope cs_name_scope(const CScope *s, const char *name) {
    const Sym *y = find_sym(s, name);
    if (!y) return s->kind == SK_FUNCTION ? NS_GLOBAL_IMPLICIT : NS_GLOBAL_IMPLICIT;
    if (y->flags & F_GLOBAL) return NS_GLOBAL_EXPLICIT;
    if (y->flags & F_CELL) return NS_CELL;
    if (s->kind == SK_CLASS) {
        if (is_local(y)) return NS_LOCAL;
        if (y->flags & F_FREE) return NS_FREE;
        return NS_GLOBAL_IMPLICIT;
    }
    if (y->flags & F_FREE) return NS_FREE;
    if (is_local(y)) return s->kind == SK_MODULE ? NS_GLOBAL_IMPLICIT : NS_LOCAL;
    return NS_GLOBAL_IMPLICIT;
}

size_t cs_count(const CScope *s, int which) { return which == 0 ? s->nvar : which == 1 ? s->ncell : s->nfree; }

const char *cs_name(const CScope *s, int which, size_t i) {
    return which == 0 ? s->varnames[i] : which == 1 ? s->cellvars[i] : s->freevars[i];
}
