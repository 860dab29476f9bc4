/* symtable.c — building symbol tables (CPython 3.11's Python/symtable.c): the analysis that
 * resolves every name (the visitor that records them is sym_visit.c), and the name lists the
 * compiler starts each code object with: the parameters (the rest of co_varnames is added by
 * the compiler in the order it compiles the names, as CPython's is), cellvars and freevars. */
#include "src/frontend/symtable.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/mangle.h"
#include "src/frontend/symtable_internal.h"

/* ---- interning and name sets ---- */

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static uint64_t hash_ptr(const void *p) {
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

const char *sym_intern(SymTable *st, const char *s) {
    if ((st->intern_count + 1) * 2 > st->intern_cap) {
        size_t cap = st->intern_cap ? st->intern_cap * 2 : 256;
        const char **slots = calloc(cap, sizeof *slots);
        if (!slots) {
            st->failed = true;
            return s;
        }
        for (size_t i = 0; i < st->intern_cap; i++) {
            const char *x = st->intern[i];
            if (!x) continue;
            size_t j = hash_str(x) & (cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = x;
        }
        free(st->intern);
        st->intern = slots;
        st->intern_cap = cap;
    }
    size_t j = hash_str(s) & (st->intern_cap - 1);
    while (st->intern[j]) {
        if (strcmp(st->intern[j], s) == 0) return st->intern[j];
        j = (j + 1) & (st->intern_cap - 1);
    }
    const char *copy = ast_arena_strndup(st->arena, s, strlen(s));
    if (!copy) {
        st->failed = true;
        return s;
    }
    st->intern[j] = copy;
    st->intern_count++;
    return copy;
}

bool nameset_add(NameSet *s, const char *name) {
    if ((s->count + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        const char **slots = calloc(cap, sizeof *slots);
        if (!slots) return false;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i]) continue;
            size_t j = hash_ptr(s->slots[i]) & (cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = s->slots[i];
        }
        free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    size_t j = hash_ptr(name) & (s->cap - 1);
    while (s->slots[j]) {
        if (s->slots[j] == name) return true;
        j = (j + 1) & (s->cap - 1);
    }
    s->slots[j] = name;
    s->count++;
    return true;
}

bool nameset_contains(const NameSet *s, const char *name) {
    if (!s || !s->cap) return false;
    size_t j = hash_ptr(name) & (s->cap - 1);
    while (s->slots[j]) {
        if (s->slots[j] == name) return true;
        j = (j + 1) & (s->cap - 1);
    }
    return false;
}

void nameset_discard(NameSet *s, const char *name) {
    if (!nameset_contains(s, name)) return;
    NameSet fresh = {0};
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i] && s->slots[i] != name) nameset_add(&fresh, s->slots[i]);
    free(s->slots);
    *s = fresh;
}

bool nameset_union(NameSet *dst, const NameSet *src) {
    for (size_t i = 0; src && i < src->cap; i++)
        if (src->slots[i] && !nameset_add(dst, src->slots[i])) return false;
    return true;
}

void nameset_free(NameSet *s) {
    free(s->slots);
    s->slots = NULL;
    s->cap = s->count = 0;
}

/* ---- symbols of a scope ---- */

SymSymbol *scope_find(ScopeImpl *sc, const char *name) {
    if (!sc->index_cap) return NULL;
    size_t j = hash_ptr(name) & (sc->index_cap - 1);
    while (sc->index[j]) {
        SymSymbol *sym = &sc->pub.symbols[sc->index[j] - 1];
        if (sym->name == name) return sym;
        j = (j + 1) & (sc->index_cap - 1);
    }
    return NULL;
}

static bool scope_reindex(ScopeImpl *sc, size_t cap) {
    size_t *index = calloc(cap, sizeof *index);
    if (!index) return false;
    for (size_t i = 0; i < sc->pub.nsymbols; i++) {
        size_t j = hash_ptr(sc->pub.symbols[i].name) & (cap - 1);
        while (index[j]) j = (j + 1) & (cap - 1);
        index[j] = i + 1;
    }
    free(sc->index);
    sc->index = index;
    sc->index_cap = cap;
    return true;
}

SymSymbol *scope_add(SymTable *st, ScopeImpl *sc, const char *name, int flags) {
    if (sc->pub.nsymbols == sc->sym_cap) {
        size_t cap = sc->sym_cap ? sc->sym_cap * 2 : 8;
        SymSymbol *syms = ast_arena_alloc(st->arena, cap * sizeof *syms);
        if (!syms) {
            st->failed = true;
            return NULL;
        }
        if (sc->pub.nsymbols) memcpy(syms, sc->pub.symbols, sc->pub.nsymbols * sizeof *syms);
        sc->pub.symbols = syms;
        sc->sym_cap = cap;
    }
    SymSymbol *sym = &sc->pub.symbols[sc->pub.nsymbols++];
    sym->name = name;
    sym->flags = flags;
    sym->scope = SYM_UNDEFINED;
    if ((sc->pub.nsymbols) * 2 > sc->index_cap && !scope_reindex(sc, sc->index_cap ? sc->index_cap * 2 : 16)) {
        st->failed = true;
        return NULL;
    }
    size_t j = hash_ptr(name) & (sc->index_cap - 1);
    while (sc->index[j]) j = (j + 1) & (sc->index_cap - 1);
    sc->index[j] = sc->pub.nsymbols;
    return sym;
}

/* ---- mangling ---- */

const char *sym_mangle(SymTable *st, const char *private_name, const char *name) {
    const char *m = ast_mangle(st->arena, private_name, name);
    if (!m) {
        st->failed = true;
        return name;
    }
    return m == name ? name : sym_intern(st, m); /* symbols compare interned names by pointer */
}

/* ---- errors ---- */

void sym_error(SymTable *st, int lineno, int col, int end_lineno, int end_col, const char *fmt,
               const char *name) {
    if (st->error_raised) return;
    char msg[512];
    snprintf(msg, sizeof msg, fmt, name);
    parse_errors_add(st->errors, PARSE_SYNTAX_ERROR, PARSE_PHASE_SYMTABLE, msg, lineno, col + 1,
                     end_lineno, end_col + 1, NULL, 0);
    st->error_raised = true;
}

/* ---- public lookups ---- */

SymScope *sym_module_scope(const SymTable *st) { return st ? &st->top->pub : NULL; }

SymScope *sym_scope_for_node(const SymTable *st, const void *node) {
    if (!st || !node || !st->node_cap) return NULL;
    size_t j = hash_ptr(node) & (st->node_cap - 1);
    while (st->node_keys[j]) {
        if (st->node_keys[j] == node) return st->node_vals[j];
        j = (j + 1) & (st->node_cap - 1);
    }
    return NULL;
}

bool sym_map_node(SymTable *st, const void *node, SymScope *scope) {
    if ((st->node_count + 1) * 2 > st->node_cap) {
        size_t cap = st->node_cap ? st->node_cap * 2 : 64;
        const void **keys = calloc(cap, sizeof *keys);
        SymScope **vals = calloc(cap, sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return false;
        }
        for (size_t i = 0; i < st->node_cap; i++) {
            if (!st->node_keys[i]) continue;
            size_t j = hash_ptr(st->node_keys[i]) & (cap - 1);
            while (keys[j]) j = (j + 1) & (cap - 1);
            keys[j] = st->node_keys[i];
            vals[j] = st->node_vals[i];
        }
        free(st->node_keys);
        free(st->node_vals);
        st->node_keys = keys;
        st->node_vals = vals;
        st->node_cap = cap;
    }
    size_t j = hash_ptr(node) & (st->node_cap - 1);
    while (st->node_keys[j] && st->node_keys[j] != node) j = (j + 1) & (st->node_cap - 1);
    if (!st->node_keys[j]) st->node_count++;
    st->node_keys[j] = node;
    st->node_vals[j] = scope;
    return true;
}

const SymSymbol *sym_lookup(const SymScope *scope, const char *name) {
    if (!scope || !name) return NULL;
    ScopeImpl *sc = (ScopeImpl *)scope;
    SymTable *st = sc->table;
    const char *m = sym_mangle(st, scope->private_name, sym_intern(st, name));
    return scope_find(sc, m);
}

SymScopeKind sym_scope_of(const SymScope *scope, const char *name) {
    const SymSymbol *sym = sym_lookup(scope, name);
    if (!sym) return SYM_UNDEFINED;
    if (sym->scope == SYM_FREE && scope->type == SYM_BLOCK_CLASS) return SYM_CLASS_FREE;
    return sym->scope;
}

/* ---- analysis (CPython's analyze_block and friends) ---- */

/* analyze_name: the scope of one name given what enclosing blocks bind. */
static bool analyze_name(SymTable *st, ScopeImpl *sc, SymSymbol *sym, NameSet *bound,
                         NameSet *local, NameSet *free, NameSet *global) {
    const char *name = sym->name;
    int flags = sym->flags;
    if (flags & SYM_DEF_GLOBAL) {
        if (flags & SYM_DEF_NONLOCAL) {
            sym_error_at_directive(st, sc, name, "name '%s' is nonlocal and global");
            return false;
        }
        sym->scope = SYM_GLOBAL_EXPLICIT;
        if (!nameset_add(global, name)) return false;
        if (bound) nameset_discard(bound, name);
        return true;
    }
    if (flags & SYM_DEF_NONLOCAL) {
        if (!bound) {
            sym_error_at_directive(st, sc, name, "nonlocal declaration not allowed at module level");
            return false;
        }
        if (!nameset_contains(bound, name)) {
            sym_error_at_directive(st, sc, name, "no binding for nonlocal '%s' found");
            return false;
        }
        sym->scope = SYM_FREE;
        sc->pub.has_free = true;
        return nameset_add(free, name);
    }
    if (flags & SYM_DEF_BOUND) {
        sym->scope = SYM_LOCAL;
        if (!nameset_add(local, name)) return false;
        nameset_discard(global, name);
        return true;
    }
    if (bound && nameset_contains(bound, name)) {
        sym->scope = SYM_FREE;
        sc->pub.has_free = true;
        return nameset_add(free, name);
    }
    if (global && nameset_contains(global, name)) {
        sym->scope = SYM_GLOBAL_IMPLICIT;
        return true;
    }
    if (sc->pub.is_nested) sc->pub.has_free = true;
    sym->scope = SYM_GLOBAL_IMPLICIT;
    return true;
}

/* update_symbols: record free names of children (DEF_FREE_CLASS for class-bound ones). */
static bool update_symbols(SymTable *st, ScopeImpl *sc, NameSet *bound, NameSet *newfree,
                           bool classflag) {
    /* CPython iterates a set here; sorting keeps the symbol order reproducible. */
    const char **names = malloc((newfree->count + 1) * sizeof *names);
    if (!names) return false;
    size_t n = 0;
    for (size_t i = 0; i < newfree->cap; i++)
        if (newfree->slots[i]) names[n++] = newfree->slots[i];
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
            const char *t = names[k];
            names[k] = names[k - 1];
            names[k - 1] = t;
        }
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        SymSymbol *sym = scope_find(sc, names[i]);
        if (sym) {
            if (classflag && (sym->flags & (SYM_DEF_BOUND | SYM_DEF_GLOBAL)))
                sym->flags |= SYM_DEF_FREE_CLASS;
            continue;
        }
        if (bound && !nameset_contains(bound, names[i])) continue; /* a global */
        sym = scope_add(st, sc, names[i], 0);
        if (!sym) ok = false;
        else sym->scope = SYM_FREE;
    }
    free(names);
    return ok;
}

static bool analyze_block(SymTable *st, ScopeImpl *sc, NameSet *bound, NameSet *free,
                          NameSet *global);

static bool analyze_child_block(SymTable *st, ScopeImpl *child, NameSet *bound, NameSet *free,
                                NameSet *global, NameSet *child_free) {
    NameSet tb = {0}, tg = {0}, tf = {0};
    bool ok = nameset_union(&tb, bound) && nameset_union(&tg, global) && nameset_union(&tf, free) &&
              analyze_block(st, child, &tb, &tf, &tg) && nameset_union(child_free, &tf);
    nameset_free(&tb);
    nameset_free(&tg);
    nameset_free(&tf);
    return ok;
}

static bool analyze_block(SymTable *st, ScopeImpl *sc, NameSet *bound, NameSet *free,
                          NameSet *global) {
    NameSet local = {0}, newbound = {0}, newglobal = {0}, newfree = {0}, allfree = {0};
    bool ok = true;
    SymBlockType type = sc->pub.type;
    if (type == SYM_BLOCK_CLASS) {
        ok = nameset_union(&newglobal, global) && (!bound || nameset_union(&newbound, bound));
    }
    for (size_t i = 0; ok && i < sc->pub.nsymbols; i++)
        ok = analyze_name(st, sc, &sc->pub.symbols[i], bound, &local, free, global);
    if (ok && type != SYM_BLOCK_CLASS) {
        if (type == SYM_BLOCK_FUNCTION) ok = nameset_union(&newbound, &local);
        ok = ok && (!bound || nameset_union(&newbound, bound)) && nameset_union(&newglobal, global);
    } else if (ok) {
        ok = nameset_add(&newbound, st->id_class);
    }
    for (size_t i = 0; ok && i < sc->pub.nchildren; i++) {
        ScopeImpl *child = (ScopeImpl *)sc->pub.children[i];
        ok = analyze_child_block(st, child, &newbound, &newfree, &newglobal, &allfree);
        if (child->pub.has_free || child->pub.child_free) sc->pub.child_free = true;
    }
    ok = ok && nameset_union(&newfree, &allfree);
    if (ok && type == SYM_BLOCK_FUNCTION) { /* analyze_cells */
        for (size_t i = 0; i < sc->pub.nsymbols; i++) {
            SymSymbol *sym = &sc->pub.symbols[i];
            if (sym->scope != SYM_LOCAL || !nameset_contains(&newfree, sym->name)) continue;
            sym->scope = SYM_CELL;
            nameset_discard(&newfree, sym->name);
        }
    } else if (ok && type == SYM_BLOCK_CLASS) { /* drop_class_free */
        if (nameset_contains(&newfree, st->id_class)) {
            nameset_discard(&newfree, st->id_class);
            sc->pub.needs_class_closure = true;
        }
    }
    ok = ok && update_symbols(st, sc, bound, &newfree, type == SYM_BLOCK_CLASS) &&
         nameset_union(free, &newfree);
    nameset_free(&local);
    nameset_free(&newbound);
    nameset_free(&newglobal);
    nameset_free(&newfree);
    nameset_free(&allfree);
    return ok;
}

/* ---- the lists the compiler needs ---- */

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char **name_array(SymTable *st, size_t n) {
    const char **a = ast_arena_alloc(st->arena, (n ? n : 1) * sizeof *a);
    if (!a) st->failed = true;
    return a;
}

static bool in_list(const char **list, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (list[i] == name) return true;
    return false;
}

/* varnames: the parameters in co_varnames order (posonly, positional, kwonly, *args, **kwargs),
 * CPython's ste_varnames. */
static void compute_param_varnames(SymTable *st, SymScope *s) {
    static const SymParamKind order[] = {SYM_PARAM_POSONLY, SYM_PARAM_POSITIONAL, SYM_PARAM_KWONLY,
                                         SYM_PARAM_VARARG, SYM_PARAM_KWARG};
    s->varnames = name_array(st, s->nparams);
    if (!s->varnames) return;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        for (size_t i = 0; i < s->nparams; i++)
            if (s->params[i].kind == order[k]) s->varnames[s->nvarnames++] = s->params[i].name;
}

static void compute_lists(SymTable *st, ScopeImpl *sc) {
    SymScope *s = &sc->pub;
    compute_param_varnames(st, s);
    if (!s->varnames) return;
    size_t ncells = 0, nfree = 0;
    for (size_t i = 0; i < s->nsymbols; i++) {
        if (s->symbols[i].scope == SYM_CELL) ncells++;
        if (s->symbols[i].scope == SYM_FREE || (s->symbols[i].flags & SYM_DEF_FREE_CLASS)) nfree++;
    }
    if (s->needs_class_closure) ncells++;
    s->cellvars = name_array(st, ncells);
    s->freevars = name_array(st, nfree);
    if (!s->cellvars || !s->freevars) return;
    /* cells that are varnames (parameters) come first, in varnames order */
    for (size_t i = 0; i < s->nvarnames; i++) {
        const SymSymbol *sym = scope_find(sc, s->varnames[i]);
        if (sym && sym->scope == SYM_CELL) s->cellvars[s->ncellvars++] = s->varnames[i];
    }
    size_t first_other = s->ncellvars;
    if (s->needs_class_closure) s->cellvars[s->ncellvars++] = st->id_class;
    for (size_t i = 0; i < s->nsymbols; i++) {
        const SymSymbol *sym = &s->symbols[i];
        if (sym->scope == SYM_CELL && !in_list(s->varnames, s->nvarnames, sym->name))
            s->cellvars[s->ncellvars++] = sym->name;
        if (sym->scope == SYM_FREE || (sym->flags & SYM_DEF_FREE_CLASS))
            s->freevars[s->nfreevars++] = sym->name;
    }
    qsort(s->cellvars + first_other, s->ncellvars - first_other, sizeof *s->cellvars, cmp_str);
    qsort(s->freevars, s->nfreevars, sizeof *s->freevars, cmp_str);
    for (size_t i = 0; i < s->nchildren; i++) compute_lists(st, (ScopeImpl *)s->children[i]);
}

/* ---- entry points ---- */

static void free_scope(ScopeImpl *sc) {
    for (size_t i = 0; i < sc->pub.nchildren; i++) free_scope((ScopeImpl *)sc->pub.children[i]);
    free(sc->index);
    free(sc->directives);
}

void sym_free(SymTable *st) {
    if (!st) return;
    if (st->top) free_scope(st->top);
    free(st->intern);
    free(st->node_keys);
    free(st->node_vals);
    ast_arena_free(st->arena);
    free(st);
}

bool sym_future_annotations(const AstModule *mod) {
    size_t i = 0;
    int prev_line = 0;
    bool found = false;
    const AstStmtSeq *body = &mod->body;
    if (body->count && body->items[0]->kind == AST_STMT_EXPR &&
        body->items[0]->v.Expr.value->kind == AST_EXPR_CONSTANT &&
        body->items[0]->v.Expr.value->v.Constant.value.type == AST_CONST_STR)
        i++;
    for (; i < body->count; i++) {
        const AstStmt *s = body->items[i];
        if (s->kind != AST_STMT_IMPORT_FROM || !s->v.ImportFrom.module ||
            strcmp(s->v.ImportFrom.module, "__future__") != 0) {
            if (s->lineno > prev_line || !found) break;
            continue;
        }
        prev_line = s->lineno;
        for (size_t k = 0; k < s->v.ImportFrom.names.count; k++)
            if (strcmp(s->v.ImportFrom.names.items[k]->name, "annotations") == 0) found = true;
    }
    return found;
}

SymTable *sym_build(const AstModule *mod, ParseErrorList *errors) {
    return sym_build_ex(mod, sym_future_annotations(mod), errors);
}

SymTable *sym_build_ex(const AstModule *mod, bool future_annotations, ParseErrorList *errors) {
    SymTable *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->arena = ast_arena_new();
    st->errors = errors;
    st->future_annotations = future_annotations;
    if (!st->arena) {
        free(st);
        return NULL;
    }
    st->id_class = sym_intern(st, "__class__");
    bool ok = sym_visit_module(st, mod);
    NameSet free_names = {0}, global = {0};
    if (ok && !st->failed) ok = analyze_block(st, st->top, NULL, &free_names, &global);
    nameset_free(&free_names);
    nameset_free(&global);
    if (ok && !st->failed) compute_lists(st, st->top);
    if (st->failed && !st->error_raised)
        parse_errors_add(errors, PARSE_SYNTAX_ERROR, PARSE_PHASE_SYMTABLE, "out of memory", 0, 0, 0,
                         0, NULL, 0);
    if (!ok || st->failed || st->error_raised) {
        sym_free(st);
        return NULL;
    }
    return st;
}
