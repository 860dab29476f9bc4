/* src/frontend/ast_module.h — the `_ast` module (ast_module.c) and the two conversions between
 * Ember's C tree and CPython's AST objects: ast_module_to_obj (ast.parse) and ast_obj_to_module
 * (compile(tree, ...), ast_from_obj.c). */
#ifndef EMBER_FRONTEND_AST_MODULE_H
#define EMBER_FRONTEND_AST_MODULE_H

#include "src/frontend/ast.h"
#include "src/frontend/ast_nodes.h"
#include "vm/vm.h"

/* Per-VM: the classes (ast_node_defs order), the shared operator/context instances, and the
 * interned field names. */
typedef struct AstState {
    bool ready;
    TypeObj *cls[AST_NODE_COUNT];
    Value singleton[AST_NODE_COUNT]; /* Load(), Add(), ...; VAL_NULL for other classes */
    StrObj *field[AST_NODE_COUNT][7];
    StrObj *pos[4]; /* lineno, col_offset, end_lineno, end_col_offset */
} AstState;

/* The state, the classes made on first use; NULL with an exception pending. */
AstState *ast_state(VM *vm);

/* The AST object (Module, Expression, Interactive or FunctionType) of a C tree; VAL_NULL with
 * an exception pending. */
Value ast_module_to_obj(VM *vm, const AstModule *mod);
Value ast_constant_to_obj(VM *vm, const AstConstant *k);

/* The C tree (in arena) of an AST object, checked as CPython's obj2ast and PyAST_Validate
 * check it (their exceptions and messages).  mode is the compile() mode (ParseMode): the
 * object must be a Module, Expression, Interactive or FunctionType accordingly.  NULL with an
 * exception pending. */
AstModule *ast_obj_to_module(VM *vm, Value obj, int mode, AstArena *arena);

/* Whether v is an instance of _ast.AST (the classes exist once the state does). */
bool ast_is_ast_object(VM *vm, Value v);

/* Registers `_ast` as a native module (called with compile()'s registration). */
void ast_module_register(VM *vm);

#endif
