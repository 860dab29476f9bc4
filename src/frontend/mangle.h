/* mangle.h — private name mangling (CPython 3.11's _Py_Mangle): inside a class body, and in
 * every function, lambda, comprehension and class nested in it, an identifier `__spam` is
 * rewritten to `_Class__spam`, where Class is the innermost enclosing class's name with its
 * leading underscores stripped.
 *
 * Design note.  The rule is defined once, here, and applied where CPython applies it: by the
 * two consumers of identifiers, never by rewriting the tree.  Each carries a "private name"
 * context the way CPython does (symtable's st_private, the compiler unit's u_private): NULL at
 * module level, the class's name inside a class body, inherited unchanged by functions,
 * lambdas and comprehensions.  compile_scope.c stores each scope's private name on the scope
 * and keys its symbols by mangled name; the compiler takes its unit's private name from that
 * scope and mangles in comp_nameop (names), comp_name_index (attributes, IMPORT_NAME and
 * IMPORT_FROM: CPython's ADDOP_NAME) and the string keys of kwdefaults and __annotations__.
 * symtable.c keeps the same context for introspection.  An AST rewrite was rejected: a
 * def/class binds the mangled name while its __name__/__qualname__ keep the written one,
 * `import __a.b` imports `__a.b` but binds `_C__a`, `import a.__b as c` fetches `__b`
 * unmangled, and the AST dump must stay CPython's ast.dump of the source.
 *
 * Example: in `class _Widget:` the name `__size` is `_Widget__size`; `__init__`, `__`,
 * `___`, `__a.b` and `_x` are left alone; in `class ___:` nothing is mangled. */
#ifndef EMBER_FRONTEND_MANGLE_H
#define EMBER_FRONTEND_MANGLE_H

#include <stddef.h>

#include "src/frontend/ast.h"

/* The class-name part of name's mangled form: private_name without its leading underscores,
 * or NULL when name is not mangled there (no class, not `__x`, a `__dunder__`, a dotted
 * module path, or a class name of underscores only). */
const char *ast_mangle_prefix(const char *private_name, const char *name);

/* name as it is bound inside a class named private_name (NULL outside classes): name itself
 * when no mangling applies, else "_" + prefix + name allocated in arena; NULL only when the
 * arena is out of memory. */
const char *ast_mangle(AstArena *arena, const char *private_name, const char *name);

#endif
