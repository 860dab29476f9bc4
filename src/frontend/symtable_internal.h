/* symtable_internal.h — state shared by symtable.c and sym_visit.c. */
#ifndef EMBER_FRONTEND_SYMTABLE_INTERNAL_H
#define EMBER_FRONTEND_SYMTABLE_INTERNAL_H

#include "src/frontend/symtable.h"

/* A set of interned names (pointer identity). */
typedef struct NameSet {
    const char **slots;
    size_t cap, count;
} NameSet;

/* Where a global/nonlocal statement declared a name (for errors found in the analysis). */
typedef struct SymDirective {
    const char *name;
    int lineno, col_offset, end_lineno, end_col_offset;
} SymDirective;

typedef struct ScopeImpl {
    SymScope pub; /* first: a SymScope* is a ScopeImpl* */
    struct SymTable *table;
    size_t sym_cap, child_cap, param_cap;
    size_t *index; /* open addressing: symbol index + 1 */
    size_t index_cap;
    SymDirective *directives;
    size_t ndirectives, directive_cap;
    bool comp_iter_target; /* visiting a comprehension's target */
    int comp_iter_expr;    /* > 0 while visiting a comprehension's iterable */
} ScopeImpl;

struct SymTable {
    AstArena *arena;
    ScopeImpl *top;
    ScopeImpl *cur;
    const char *private_name;
    bool future_annotations;
    ParseErrorList *errors;
    bool error_raised, failed;
    const char *id_class; /* interned "__class__" */
    const char **intern;
    size_t intern_cap, intern_count;
    const void **node_keys;
    SymScope **node_vals;
    size_t node_cap, node_count;
    int depth;
};

const char *sym_intern(SymTable *st, const char *s);
bool nameset_add(NameSet *s, const char *name);
bool nameset_contains(const NameSet *s, const char *name);
void nameset_discard(NameSet *s, const char *name);
bool nameset_union(NameSet *dst, const NameSet *src);
void nameset_free(NameSet *s);
SymSymbol *scope_find(ScopeImpl *sc, const char *name);
SymSymbol *scope_add(SymTable *st, ScopeImpl *sc, const char *name, int flags);
bool sym_map_node(SymTable *st, const void *node, SymScope *scope);

/* Records a CPython symbol-table SyntaxError (columns are 0-based byte offsets). */
void sym_error(SymTable *st, int lineno, int col, int end_lineno, int end_col, const char *fmt,
               const char *name);
void sym_error_at_directive(SymTable *st, ScopeImpl *sc, const char *name, const char *fmt);

bool sym_visit_module(SymTable *st, const AstModule *mod); /* sym_visit.c */

#endif
