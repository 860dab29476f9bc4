/* mangle.c — the private name mangling rule, shared by the compiler's scope analysis, its
 * code generator and the symbol tables (see mangle.h for why it lives apart from them). */
#include "src/frontend/mangle.h"

#include <string.h>

const char *ast_mangle_prefix(const char *private_name, const char *name) {
    if (!private_name || name[0] != '_' || name[1] != '_') return NULL;
    size_t n = strlen(name);
    /* `__x__` is a special name, and so are `__` and `___` (they end in two underscores) */
    if (name[n - 1] == '_' && name[n - 2] == '_') return NULL;
    /* a dotted name only reaches here as the module path of an import */
    if (strchr(name, '.')) return NULL;
    while (*private_name == '_') private_name++;
    return *private_name ? private_name : NULL;
}

const char *ast_mangle(AstArena *arena, const char *private_name, const char *name) {
    const char *prefix = ast_mangle_prefix(private_name, name);
    if (!prefix) return name;
    size_t pn = strlen(prefix), n = strlen(name);
    char *out = ast_arena_alloc(arena, pn + n + 2);
    if (!out) return NULL;
    out[0] = '_';
    memcpy(out + 1, prefix, pn);
    memcpy(out + 1 + pn, name, n + 1);
    return out;
}
