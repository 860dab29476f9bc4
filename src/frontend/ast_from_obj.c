/* src/frontend/ast_from_obj.c — AST objects back to Ember's C tree, for compile(tree, ...): the
 * obj2ast half of CPython 3.11's Python-ast.c, with its lookups in its order and its messages
 * ("required field \"lineno\" missing from stmt", "expected some sort of expr, but got ...",
 * "field 'value' is required for Expr", "Module field \"body\" must be a list, not a tuple"),
 * then PyAST_Validate's checks (ast_validate.c).
 *
 * The walk is driven by the class table (ast_nodes.c): a sum type's node first reads the
 * position attributes, then finds its class by isinstance, then converts each field by its
 * ASDL type and stores it at the table's offset; product types read their fields first, then
 * their positions.  Objects are only read, never kept: identifiers and string constants are
 * copied into the arena, so the tree outlives nothing it came from. */
#include <stdlib.h>
#include <string.h>

#include "src/frontend/ast_module.h"
#include "src/frontend/ast_validate.h"
#include "src/frontend/parser.h"
#include "vm/bigint.h"
#include "vm/gc.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

typedef struct FromObj {
    VM *vm;
    AstState *st;
    AstArena *arena;
    int depth;
} FromObj;

typedef struct AnySeq {
    void *items;
    size_t count;
} AnySeq;

#define MAX_DEPTH 3000

static int node_from(FromObj *f, AstFamily fam, Value obj, void **out);

static const char *family_name(AstFamily fam) {
    int i = ast_family_class(fam);
    return i >= 0 ? ast_node_defs[i].name : "?";
}

static int no_memory(FromObj *f) {
    vm_no_memory(f->vm);
    return -1;
}

/* "... but got %R": the object's repr */
static int expected(FromObj *f, const char *what, Value obj) {
    VM *vm = f->vm;
    Value r = vm_repr(vm, obj);
    if (val_is_null(r)) return -1;
    vm_raise(vm, vm->e_TypeError, "expected some sort of %s, but got %s", what, AS_STR(r)->data);
    return -1;
}

/* getattr that tells absence (0, *out VAL_NULL) from failure (-1) */
static int lookup(FromObj *f, Value obj, StrObj *name, Value *out) {
    VM *vm = f->vm;
    *out = vm_getattr_opt(vm, obj, name);
    if (val_is_null(*out) && !val_is_null(vm->exc)) return -1;
    return 0;
}

static int missing(FromObj *f, const char *field, const char *owner) {
    vm_raise(f->vm, f->vm->e_TypeError, "required field \"%s\" missing from %s", field, owner);
    return -1;
}

static int to_int(FromObj *f, Value v, int *out) {
    VM *vm = f->vm;
    if (!bigint_check(vm, v)) {
        Value r = vm_repr(vm, v);
        if (val_is_null(r)) return -1;
        vm_raise(vm, vm->e_ValueError, "invalid integer value: %s", AS_STR(r)->data);
        return -1;
    }
    int64_t i;
    if (val_is_int(v)) i = v.as.i;
    else if (val_is_bool(v)) i = v.as.b;
    else if (bigint_as_i64(vm, v, &i) < 0) i = INT64_MAX, vm_clear_exc(vm);
    if (i < INT32_MIN || i > INT32_MAX) {
        vm_raise(vm, vm->e_OverflowError, "Python int too large to convert to C int");
        return -1;
    }
    *out = (int)i;
    return 0;
}

static const char *arena_str(FromObj *f, StrObj *s) { return ast_arena_strndup(f->arena, s->data, (size_t)s->len); }

/* obj2ast_identifier: a str (exactly) or None */
static int to_ident(FromObj *f, Value v, const char **out) {
    VM *vm = f->vm;
    if (val_is_none(v)) {
        *out = NULL;
        return 0;
    }
    if (!val_is_type(vm, v, vm->t_str)) {
        vm_raise(vm, vm->e_TypeError, "AST identifier must be of type str");
        return -1;
    }
    if (!(*out = arena_str(f, AS_STR(v)))) return no_memory(f);
    return 0;
}

/* obj2ast_string: str or bytes (type_comment, Constant.kind) */
static int to_string(FromObj *f, Value v, const char **out) {
    VM *vm = f->vm;
    if (val_is_type(vm, v, vm->t_str)) {
        if (!(*out = arena_str(f, AS_STR(v)))) return no_memory(f);
        return 0;
    }
    if (val_is_type(vm, v, vm->t_bytes)) {
        BytesObj *b = (BytesObj *)v.as.o;
        if (!(*out = ast_arena_strndup(f->arena, (const char *)b->data, (size_t)b->len))) return no_memory(f);
        return 0;
    }
    vm_raise(vm, vm->e_TypeError, "AST string must be of type str");
    return -1;
}

/* A Constant's value: the types PyAST_Validate's validate_constant accepts.  A tuple (which
 * CPython's optimizer puts in Constants) is flagged for the caller, which rebuilds it as a
 * Tuple display of constants: compiled, that folds back into the same constant. */
static int to_constant(FromObj *f, Value v, AstConstant *out, bool *is_tuple) {
    VM *vm = f->vm;
    memset(out, 0, sizeof *out);
    *is_tuple = false;
    if (val_is_none(v)) out->type = AST_CONST_NONE;
    else if (val_is_bool(v)) out->type = AST_CONST_BOOL, out->b = v.as.b;
    else if (val_is_int(v)) out->type = AST_CONST_INT, out->i = v.as.i;
    else if (val_is_float(v)) out->type = AST_CONST_FLOAT, out->f = v.as.f;
    else if (val_is_type(vm, v, vm->t_ellipsis)) out->type = AST_CONST_ELLIPSIS;
    else if (val_is_type(vm, v, vm->t_complex)) {
        /* its parts through the attributes: the complex layout is vm/complex.c's own */
        Value re = vm_getattr_c(vm, v, "real");
        if (val_is_null(re)) return -1;
        Value im = vm_getattr_c(vm, v, "imag");
        if (val_is_null(im)) return -1;
        if (!val_is_float(re) || !val_is_float(im)) {
            vm_raise(vm, vm->e_SystemError, "complex parts are not floats");
            return -1;
        }
        out->type = AST_CONST_COMPLEX, out->re = re.as.f, out->f = im.as.f;
    }
    else if (val_is_type(vm, v, vm->t_int) && val_is_intobj(v)) {
        char *digits = mpz_get_str(NULL, 10, AS_INTOBJ(v)->z);
        if (!digits) return no_memory(f);
        out->type = AST_CONST_BIG_INT;
        out->s.len = strlen(digits);
        out->s.data = ast_arena_strndup(f->arena, digits, out->s.len);
        free(digits);
        if (!out->s.data) return no_memory(f);
    } else if (val_is_type(vm, v, vm->t_str) || val_is_type(vm, v, vm->t_bytes)) {
        bool str = val_is_type(vm, v, vm->t_str);
        const char *data = str ? AS_STR(v)->data : (const char *)((BytesObj *)v.as.o)->data;
        size_t len = (size_t)(str ? AS_STR(v)->len : ((BytesObj *)v.as.o)->len);
        out->type = str ? AST_CONST_STR : AST_CONST_BYTES;
        out->s.len = len;
        if (!(out->s.data = ast_arena_strndup(f->arena, data, len))) return no_memory(f);
    } else if (val_is_type(vm, v, vm->t_tuple)) {
        *is_tuple = true;
    } else if (val_is_type(vm, v, vm->t_frozenset)) {
        vm_raise(vm, vm->e_NotImplementedError, "frozenset constants in an AST are not supported");
        return -1;
    } else {
        vm_raise(vm, vm->e_TypeError, "got an invalid type in Constant: %s", vm_type_name(vm, v));
        return -1;
    }
    return 0;
}

/* A tuple constant as Tuple(elts=[Constant, ...], ctx=Load()) at the Constant's position. */
static int tuple_constant(FromObj *f, Value tuple, AstExpr *node) {
    TupleObj *t = AS_TUPLE(tuple);
    AstExpr **items = t->len ? ast_arena_alloc(f->arena, sizeof(AstExpr *) * (size_t)t->len) : NULL;
    if (t->len && !items) return no_memory(f);
    for (int64_t i = 0; i < t->len; i++) {
        AstExpr *c = ast_expr_new(f->arena, AST_EXPR_CONSTANT);
        if (!c) return no_memory(f);
        c->lineno = node->lineno, c->col_offset = node->col_offset;
        c->end_lineno = node->end_lineno, c->end_col_offset = node->end_col_offset;
        bool nested;
        if (to_constant(f, t->items[i], &c->v.Constant.value, &nested) < 0) return -1;
        if (nested && tuple_constant(f, t->items[i], c) < 0) return -1;
        items[i] = c;
    }
    node->kind = AST_EXPR_TUPLE;
    node->v.Tuple.elts.items = items;
    node->v.Tuple.elts.count = (size_t)t->len;
    node->v.Tuple.ctx = AST_LOAD;
    return 0;
}

/* An enum member (operator, context): the first of the family's classes obj is an instance of. */
static int to_enum(FromObj *f, AstFamily fam, Value obj, int *out) {
    for (int i = 0; i < AST_NODE_COUNT; i++) {
        const AstNodeDef *d = &ast_node_defs[i];
        if (d->family != fam || d->kind <= 0) continue;
        int r = vm_isinstance(f->vm, obj, val_obj(f->st->cls[i]));
        if (r < 0) return -1;
        if (r) {
            *out = d->kind;
            return 0;
        }
    }
    return expected(f, family_name(fam), obj);
}

/* One value of a field's type into the C slot p. */
static int value_from(FromObj *f, AstFieldType type, Value v, void *p) {
    switch (type) {
    case T_IDENT: return to_ident(f, v, p);
    case T_STRING:
        if (val_is_none(v)) {
            *(const char **)p = NULL;
            return 0;
        }
        return to_string(f, v, p);
    case T_INT: return to_int(f, v, p);
    case T_BOOLOP:
    case T_OPERATOR:
    case T_UNARYOP:
    case T_CMPOP:
    case T_CTX: return to_enum(f, ast_field_family(type), v, p);
    case T_CONSTANT: {
        bool is_tuple;
        if (to_constant(f, v, p, &is_tuple) < 0) return -1;
        if (is_tuple) {
            vm_raise(f->vm, f->vm->e_NotImplementedError, "tuple constants in patterns are not supported");
            return -1;
        }
        return 0;
    }
    default: return node_from(f, ast_field_family(type), v, p);
    }
}

static size_t item_size(AstFieldType type) {
    switch (type) {
    case T_CMPOP: return sizeof(AstCmpOp);
    case T_IDENT: return sizeof(const char *);
    default: return sizeof(void *);
    }
}

static int seq_from(FromObj *f, const AstFieldDef *fd, const char *owner, Value list, AnySeq *out) {
    VM *vm = f->vm;
    if (!val_is_obj(list) || !vm_isinstance_type(vm, list, vm->t_list)) {
        vm_raise(vm, vm->e_TypeError, "%s field \"%s\" must be a list, not a %s", owner, fd->name, vm_type_name(vm, list));
        return -1;
    }
    ListObj *l = AS_LIST(list);
    int64_t len = l->len;
    size_t isz = item_size((AstFieldType)fd->type);
    char *items = len ? ast_arena_alloc(f->arena, isz * (size_t)len) : NULL;
    if (len && !items) return no_memory(f);
    for (int64_t i = 0; i < len && i < l->len; i++) {
        Value item = l->items[i];
        vm_push_root(vm, item);
        int rc;
        if (fd->type == T_IDENT && val_is_none(item)) {
            vm_raise(vm, vm->e_TypeError, "AST identifier must be of type str");
            rc = -1;
        } else if (fd->offset == AST_FIELD_ABSENT) {
            /* type_ignores: checked, not kept */
            int ti = ast_family_class(FAM_TYPE_IGNORE) + 1;
            rc = vm_isinstance(vm, item, val_obj(f->st->cls[ti]));
            if (rc == 0) rc = expected(f, "type_ignore", item);
            else if (rc > 0) rc = 0;
        } else {
            rc = value_from(f, (AstFieldType)fd->type, item, items + isz * (size_t)i);
        }
        vm_pop_root(vm);
        if (rc < 0) return -1;
        if (l->len != len) {
            vm_raise(vm, vm->e_RuntimeError, "%s field \"%s\" changed size during iteration", owner, fd->name);
            return -1;
        }
    }
    out->items = fd->offset == AST_FIELD_ABSENT ? NULL : items;
    out->count = fd->offset == AST_FIELD_ABSENT ? 0 : (size_t)len;
    return 0;
}

/* Reads the four position attributes into pos[4] (the end ones default to the start ones when
 * optional and absent or None). */
static int positions_from(FromObj *f, AstFamily fam, Value obj, const char *owner, int *pos) {
    for (int k = 0; k < 4; k++) {
        Value v;
        if (lookup(f, obj, f->st->pos[k], &v) < 0) return -1;
        if (val_is_null(v) || (k >= 2 && ast_family_end_optional(fam) && val_is_none(v))) {
            if (k < 2 || !ast_family_end_optional(fam)) return missing(f, f->st->pos[k]->data, owner);
            pos[k] = pos[k - 2];
            continue;
        }
        vm_push_root(f->vm, v);
        int rc = to_int(f, v, &pos[k]);
        vm_pop_root(f->vm);
        if (rc < 0) return -1;
    }
    return 0;
}

static bool is_node_type(AstFieldType t) { return ast_field_family(t) != FAM_NONE && t != T_BOOLOP && t != T_OPERATOR &&
                                                  t != T_UNARYOP && t != T_CMPOP && t != T_CTX; }

static int fields_from(FromObj *f, int idx, Value obj, char *node) {
    VM *vm = f->vm;
    const AstNodeDef *d = &ast_node_defs[idx];
    bool present[7] = {false};
    Value tuple_value = val_null(); /* a Constant holding a tuple, rebuilt once its fields are read */
    int rc = 0;
    for (int k = 0; k < d->nfields && rc == 0; k++) {
        const AstFieldDef *fd = &d->fields[k];
        Value v;
        if (lookup(f, obj, f->st->field[idx][k], &v) < 0) {
            rc = -1;
            break;
        }
        if (val_is_null(v) || (fd->quant == Q_OPT && val_is_none(v))) {
            if (fd->quant != Q_OPT) rc = missing(f, fd->name, d->name);
            else if (fd->offset != AST_FIELD_ABSENT && fd->type == T_INT) *(int *)(node + fd->offset) = 0;
            continue;
        }
        if (++f->depth > MAX_DEPTH) {
            f->depth--;
            vm_raise(vm, vm->e_RecursionError, "maximum recursion depth exceeded while traversing '%s' node", d->name);
            rc = -1;
            break;
        }
        vm_push_root(vm, v);
        bool is_tuple = false;
        if (fd->quant == Q_SEQ) {
            AnySeq tmp;
            rc = seq_from(f, fd, d->name, v, fd->offset == AST_FIELD_ABSENT ? &tmp : (AnySeq *)(node + fd->offset));
        } else if (fd->offset == AST_FIELD_ABSENT) {
            const char *ignored; /* type_comment: checked, not kept */
            rc = value_from(f, (AstFieldType)fd->type, v, &ignored);
        } else if (fd->type == T_CONSTANT && d->family == FAM_EXPR) {
            rc = to_constant(f, v, (AstConstant *)(node + fd->offset), &is_tuple);
        } else {
            rc = value_from(f, (AstFieldType)fd->type, v, node + fd->offset);
        }
        f->depth--;
        if (is_tuple && rc == 0) tuple_value = v; /* stays rooted: popped after the loop */
        else vm_pop_root(vm);
        present[k] = true;
    }
    if (!val_is_null(tuple_value)) {
        if (rc == 0) rc = tuple_constant(f, tuple_value, (AstExpr *)node);
        vm_pop_root(vm);
        return rc;
    }
    if (rc < 0) return -1;
    /* the node constructor's checks: a required node or identifier given as None */
    for (int k = 0; k < d->nfields; k++) {
        const AstFieldDef *fd = &d->fields[k];
        if (fd->quant != Q_ONE || fd->offset == AST_FIELD_ABSENT || !present[k]) continue;
        if ((is_node_type((AstFieldType)fd->type) || fd->type == T_IDENT) && !*(void **)(node + fd->offset)) {
            vm_raise(vm, vm->e_ValueError, "field '%s' is required for %s", fd->name, d->name);
            return -1;
        }
    }
    return 0;
}

static int node_from(FromObj *f, AstFamily fam, Value obj, void **out) {
    VM *vm = f->vm;
    int base = ast_family_class(fam);
    const char *owner = ast_node_defs[base].name;
    bool product = fam >= FAM_ARGUMENTS;
    if (!product && val_is_none(obj)) {
        *out = NULL;
        return 0;
    }
    int pos[4] = {0, 0, 0, 0};
    bool located = ast_family_has_positions(fam);
    if (located && !product && positions_from(f, fam, obj, owner, pos) < 0) return -1;
    int idx = base;
    if (!product) {
        idx = -1;
        for (int i = base + 1; i < AST_NODE_COUNT && ast_node_defs[i].base == base; i++) {
            int r = vm_isinstance(vm, obj, val_obj(f->st->cls[i]));
            if (r < 0) return -1;
            if (r) {
                idx = i;
                break;
            }
        }
        if (idx < 0) return expected(f, owner, obj);
        if (ast_node_defs[idx].kind < 0) {
            vm_raise(vm, vm->e_NotImplementedError, "%s nodes (try/except*) are not supported", ast_node_defs[idx].name);
            return -1;
        }
    }
    char *node = ast_arena_alloc(f->arena, ast_family_size(fam));
    if (!node) return no_memory(f);
    int ko = ast_family_kind_offset(fam);
    if (ko >= 0) *(int *)(node + ko) = ast_node_defs[idx].kind;
    int po = ast_family_pos_offset(fam);
    if (po >= 0 && !product) memcpy(node + po, pos, sizeof pos);
    if (fields_from(f, idx, obj, node) < 0) return -1;
    if (located && product) {
        if (positions_from(f, fam, obj, owner, pos) < 0) return -1;
        memcpy(node + po, pos, sizeof pos);
    }
    *out = node;
    return 0;
}

bool ast_is_ast_object(VM *vm, Value v) {
    AstState *st = vm->ext[VM_EXT_AST];
    if (!st || !st->ready || !val_is_obj(v)) return false;
    return type_is_subtype(vm_type_of(vm, v), st->cls[0]);
}

AstModule *ast_obj_to_module(VM *vm, Value obj, int mode, AstArena *arena) {
    AstState *st = ast_state(vm);
    if (!st) return NULL;
    static const char *const req[] = {[PARSE_MODE_EXEC] = "Module", [PARSE_MODE_EVAL] = "Expression",
                                      [PARSE_MODE_SINGLE] = "Interactive", [PARSE_MODE_FUNC_TYPE] = "FunctionType"};
    static const int req_kind[] = {[PARSE_MODE_EXEC] = AST_MOD_MODULE, [PARSE_MODE_EVAL] = AST_MOD_EXPRESSION,
                                   [PARSE_MODE_SINGLE] = AST_MOD_INTERACTIVE,
                                   [PARSE_MODE_FUNC_TYPE] = AST_MOD_FUNCTION_TYPE};
    int idx = ast_node_index(FAM_MOD, req_kind[mode]);
    int r = vm_isinstance(vm, obj, val_obj(st->cls[idx]));
    if (r < 0) return NULL;
    if (!r) {
        vm_raise(vm, vm->e_TypeError, "expected %s node, got %s", req[mode], vm_type_name(vm, obj));
        return NULL;
    }
    FromObj f = {vm, st, arena, 0};
    void *mod = NULL;
    if (node_from(&f, FAM_MOD, obj, &mod) < 0) return NULL;
    AstValidateError err;
    if (!ast_validate(mod, &err)) {
        TypeObj *t = err.kind == AST_VALIDATE_TYPE_ERROR        ? vm->e_TypeError
                     : err.kind == AST_VALIDATE_RECURSION_ERROR ? vm->e_RecursionError
                     : err.kind == AST_VALIDATE_SYSTEM_ERROR    ? vm->e_SystemError
                                                                : vm->e_ValueError;
        vm_raise(vm, t, "%s", err.message);
        return NULL;
    }
    return mod;
}
