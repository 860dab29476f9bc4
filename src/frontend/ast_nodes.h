/* ast_nodes.h — CPython 3.11's AST classes (the `_ast` module's 119 types) described against
 * Ember's C tree (ast.h): for each class its base, its ASDL signature, and for each field the
 * ASDL type and quantifier and where the C struct keeps it.  The `_ast` module (ast_module.c)
 * builds its classes from this table and converts in both directions with it
 * (ast_to_obj.c, ast_from_obj.c); nothing here knows the VM.
 *
 * Design note.  CPython generates ~13,000 lines of per-node C from Parser/Python.asdl.  Ember's
 * C tree mirrors the ASDL node for node, so one table row per class plus two generic walkers
 * do the same job: a field is (ASDL type, quantifier, offset in the C struct).  Fields the C
 * tree does not keep (type_comment, type_ignores: Ember parses no type comments) have offset
 * AST_FIELD_ABSENT and read back as None / []. */
#ifndef EMBER_FRONTEND_AST_NODES_H
#define EMBER_FRONTEND_AST_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which C struct (or enum) a class's instances convert to. */
typedef enum AstFamily {
    FAM_NONE, /* AST itself */
    FAM_MOD,  /* AstModule */
    FAM_STMT,
    FAM_EXPR,
    FAM_CTX,  /* AstExprContext */
    FAM_BOOLOP,
    FAM_OPERATOR,
    FAM_UNARYOP,
    FAM_CMPOP,
    FAM_EXCEPTHANDLER,
    FAM_PATTERN,
    FAM_TYPE_IGNORE, /* never built: Ember keeps no type comments */
    FAM_ARGUMENTS,
    FAM_ARG,
    FAM_KEYWORD,
    FAM_ALIAS,
    FAM_COMPREHENSION,
    FAM_WITHITEM,
    FAM_MATCH_CASE,
    FAM__COUNT
} AstFamily;

/* A field's ASDL type. */
typedef enum AstFieldType {
    T_EXPR,
    T_STMT,
    T_PATTERN,
    T_ARGUMENTS,
    T_ARG,
    T_KEYWORD,
    T_ALIAS,
    T_COMPREHENSION,
    T_EXCEPTHANDLER,
    T_WITHITEM,
    T_MATCH_CASE,
    T_TYPE_IGNORE,
    T_IDENT,    /* const char * */
    T_STRING,   /* const char * (Constant.kind) */
    T_CONSTANT, /* AstConstant */
    T_INT,      /* int */
    T_BOOLOP,   /* the enums: an int-sized enum member */
    T_OPERATOR,
    T_UNARYOP,
    T_CMPOP,
    T_CTX,
} AstFieldType;

typedef enum AstFieldQuant { Q_ONE, Q_OPT, Q_SEQ } AstFieldQuant;

#define AST_FIELD_ABSENT (-1)

typedef struct AstFieldDef {
    const char *name;
    uint8_t type;   /* AstFieldType */
    uint8_t quant;  /* AstFieldQuant */
    int32_t offset; /* in the family's C struct, or AST_FIELD_ABSENT */
} AstFieldDef;

typedef struct AstNodeDef {
    const char *name;
    int base;         /* index of the base class in ast_node_defs, -1 for AST */
    uint8_t family;   /* AstFamily */
    int kind;         /* the C kind (AstStmtKind, AstExprKind, AST_ADD, ...); 0 for an abstract
                         class, 1 for the one constructor of excepthandler and type_ignore;
                         -1 for a class Ember's tree has no node for (TryStar) */
    const char *doc;  /* ASDL signature; NULL for the abstract classes (ast_module builds
                         "stmt = FunctionDef(...)\n     | ..." from their constructors) */
    int nfields;
    AstFieldDef fields[7];
} AstNodeDef;

enum { AST_NODE_COUNT = 119 };
extern const AstNodeDef ast_node_defs[AST_NODE_COUNT];

/* The table index of the concrete class for a C node (family, kind); -1 if none. */
int ast_node_index(AstFamily family, int kind);
/* The abstract class of a family (stmt, expr, ...) or the product class (arguments, arg, ...). */
int ast_family_class(AstFamily family);
/* Whether instances of the family carry lineno/col_offset/end_lineno/end_col_offset, and
 * whether the end positions are optional (int? in the ASDL: all but pattern's). */
bool ast_family_has_positions(AstFamily family);
bool ast_family_end_optional(AstFamily family);
/* The family a field type refers to (T_EXPR -> FAM_EXPR ...); FAM_NONE for scalars. */
AstFamily ast_field_family(AstFieldType t);
/* sizeof the family's C struct (0 for the enum families and AST). */
size_t ast_family_size(AstFamily family);
/* Offsets of the C struct's kind and position fields; -1 where the family has none. */
int ast_family_kind_offset(AstFamily family);
int ast_family_pos_offset(AstFamily family); /* of `lineno`; the other three follow it */

#endif
