/* ast_validate.h — CPython 3.11's PyAST_Validate over Ember's C tree (ast_validate.c): the checks
 * compile(tree, ...) makes on a hand-built tree, reported as the exception CPython raises. */
#ifndef EMBER_FRONTEND_AST_VALIDATE_H
#define EMBER_FRONTEND_AST_VALIDATE_H

#include <stdbool.h>

#include "src/frontend/ast.h"

typedef enum AstValidateKind {
    AST_VALIDATE_OK,
    AST_VALIDATE_VALUE_ERROR,
    AST_VALIDATE_TYPE_ERROR,
    AST_VALIDATE_RECURSION_ERROR,
    AST_VALIDATE_SYSTEM_ERROR,
} AstValidateKind;

typedef struct AstValidateError {
    AstValidateKind kind;
    char message[256];
} AstValidateError;

/* true if the tree is valid; else false with err filled. */
bool ast_validate(const AstModule *mod, AstValidateError *err);

#endif
