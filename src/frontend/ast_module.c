/* src/frontend/ast_module.c — the `_ast` native module that CPython's ast.py imports: the 119
 * node classes (AST and its subclasses, with CPython 3.11's _fields, _attributes,
 * __match_args__, signatures as __doc__ and class-level None for optional fields), AST's
 * __init__ and __reduce__, the PyCF_* constants, and the conversion of Ember's C tree into
 * those objects (ast.parse, i.e. compile(..., PyCF_ONLY_AST)).  The reverse conversion, for
 * compile(tree, ...), is ast_from_obj.c.
 *
 * Design note.  It lives in src/frontend, not vm/, because it needs both the C tree (frontend)
 * and objects (vm/), and vm/ never includes the front end; the embedding layer registers it
 * with comp_register_builtins, as compile() itself.  The classes are ordinary classes made with
 * type(name, bases, ns) from the table in ast_nodes.c, so ast.py's subclasses (Num, Index, ...),
 * pickling and attribute assignment behave as CPython's heap types do.  They are built once per
 * VM, on first use (import _ast or a PyCF_ONLY_AST compile), and kept in vm->ext[VM_EXT_AST]. */
#include <stdlib.h>
#include <string.h>

#include "src/frontend/ast_module.h"
#include "src/frontend/compile.h"
#include "src/frontend/parse_check.h"
#include "vm/bigint.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

/* The positions every located node carries, in _attributes order. */
static const char *const pos_names[4] = {"lineno", "col_offset", "end_lineno", "end_col_offset"};

static void state_trace(VM *vm, void *p) {
    AstState *st = p;
    for (int i = 0; i < AST_NODE_COUNT; i++) {
        gc_mark(vm, st->cls[i]);
        gc_mark_value(vm, st->singleton[i]);
        for (int k = 0; k < ast_node_defs[i].nfields; k++) gc_mark(vm, st->field[i][k]);
    }
    for (int k = 0; k < 4; k++) gc_mark(vm, st->pos[k]);
}

static void state_free(VM *vm, void *p) { free(p); }

/* ---- AST's methods ---------------------------------------------------------------------------- */

/* The class's _fields (looked up on the type, so a subclass may redefine them); NULL with an
 * exception pending when the lookup fails other than by absence; an empty tuple if absent. */
static Value type_fields(VM *vm, Value self) {
    Value f = vm_getattr_opt(vm, val_obj(vm_type_of(vm, self)), vm_intern_str(vm, "_fields"));
    if (val_is_null(f)) {
        if (!val_is_null(vm->exc)) return val_null();
        TupleObj *t = tuple_new(vm, 0);
        return t ? val_obj(t) : val_null();
    }
    return f;
}

/* AST.__init__(self, *args, **kwargs): positional arguments fill _fields in order, keywords set
 * attributes of any name (ast_type_init). */
static Value ast_init(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value self = argv[0];
    int npos = argc - 1;
    Value fields = type_fields(vm, self);
    if (val_is_null(fields)) return val_null();
    vm_push_root(vm, fields);
    Value result = val_null();
    int64_t numfields = 0;
    if (npos > 0 || (kw && kw->len)) {
        numfields = vm_len(vm, fields);
        if (numfields < 0) goto done;
    }
    if (npos > numfields) {
        vm_raise(vm, vm->e_TypeError, "%s constructor takes at most %lld positional argument%s",
                 vm_type_of(vm, self)->name->data, (long long)numfields, numfields == 1 ? "" : "s");
        goto done;
    }
    for (int i = 0; i < npos; i++) {
        Value name = vm_getitem(vm, fields, val_int(i));
        if (val_is_null(name)) goto done;
        if (!val_is_obj(name) || !vm_isinstance_type(vm, name, vm->t_str)) {
            vm_raise(vm, vm->e_TypeError, "attribute name must be string, not '%s'", vm_type_name(vm, name));
            goto done;
        }
        if (vm_setattr(vm, self, AS_STR(name), argv[1 + i]) < 0) goto done;
    }
    for (int64_t k = 0; kw && k < kw->len; k++) {
        Value key = kw->items[k];
        for (int i = 0; i < npos; i++) {
            Value name = vm_getitem(vm, fields, val_int(i));
            if (val_is_null(name)) goto done;
            int eq = vm_eq(vm, name, key);
            if (eq < 0) goto done;
            if (eq) {
                vm_raise(vm, vm->e_TypeError, "%s got multiple values for argument '%s'",
                         vm_type_of(vm, self)->name->data, AS_STR(key)->data);
                goto done;
            }
        }
        if (vm_setattr(vm, self, AS_STR(key), argv[argc + k]) < 0) goto done;
    }
    result = val_none();
done:
    vm_pop_root(vm);
    return result;
}

/* AST.__reduce__(self): (type(self), (), self.__dict__) — pickling and copy.deepcopy. */
static Value ast_reduce(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    Value self = argv[0];
    DictObj **slot = val_is_obj(self) ? obj_dict_slot(self.as.o) : NULL;
    int n = slot ? 3 : 2;
    TupleObj *empty = tuple_new(vm, 0);
    if (!empty) return val_null();
    vm_push_root(vm, val_obj(empty));
    if (slot && !*slot) {
        DictObj *d = dict_new(vm);
        if (!d) {
            vm_pop_root(vm);
            return val_null();
        }
        *slot = d;
    }
    TupleObj *r = tuple_new(vm, n);
    vm_pop_root(vm);
    if (!r) return val_null();
    r->items[0] = val_obj(vm_type_of(vm, self));
    r->items[1] = val_obj(empty);
    if (slot) r->items[2] = val_obj(*slot);
    return val_obj(r);
}

/* ---- the classes ------------------------------------------------------------------------------ */

static TupleObj *names_tuple(VM *vm, StrObj *const *names, int n) {
    TupleObj *t = tuple_new(vm, n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) t->items[i] = val_obj(names[i]);
    return t;
}

/* "stmt = FunctionDef(...)\n     | AsyncFunctionDef(...)" — or "boolop = And | Or" for a sum of
 * bare constructors — as asdl_c.py writes an abstract class's docstring. */
static StrObj *sum_doc(VM *vm, int idx) {
    const AstNodeDef *d = &ast_node_defs[idx];
    bool simple = true;
    for (int i = idx + 1; i < AST_NODE_COUNT && ast_node_defs[i].base == idx; i++)
        if (ast_node_defs[i].nfields) simple = false;
    StrBuf b = SB_INIT;
    sb_printf(&b, "%s = ", d->name);
    bool first = true;
    for (int i = idx + 1; i < AST_NODE_COUNT && ast_node_defs[i].base == idx; i++) {
        if (!first) {
            if (simple) sb_adds(&b, " | ");
            else {
                sb_addc(&b, '\n');
                sb_repeat(&b, ' ', strlen(d->name) + 1);
                sb_adds(&b, "| ");
            }
        }
        first = false;
        sb_adds(&b, ast_node_defs[i].doc);
    }
    return sb_finish(vm, &b);
}

static bool is_abstract(const AstNodeDef *d) { return d->base == 0 && d->kind == 0 && d->family < FAM_ARGUMENTS; }

static int make_class(VM *vm, AstState *st, int idx) {
    const AstNodeDef *d = &ast_node_defs[idx];
    DictObj *ns = dict_new(vm);
    if (!ns) return -1;
    vm_push_root(vm, val_obj(ns));
    int rc = -1;
    AstFamily fam = (AstFamily)d->family;
    TupleObj *fields = names_tuple(vm, st->field[idx], d->nfields);
    if (!fields || dict_set_c(vm, ns, "_fields", val_obj(fields)) < 0 ||
        dict_set_c(vm, ns, "__match_args__", val_obj(fields)) < 0 ||
        dict_set_c(vm, ns, "__module__", vm_intern(vm, "ast")) < 0)
        goto done;
    /* _attributes: on AST, the abstract classes and the product types */
    bool owns_attrs = d->base <= 0 || is_abstract(d) || fam >= FAM_ARGUMENTS;
    if (owns_attrs) {
        TupleObj *attrs = names_tuple(vm, st->pos, ast_family_has_positions(fam) && d->base >= 0 ? 4 : 0);
        if (!attrs || dict_set_c(vm, ns, "_attributes", val_obj(attrs)) < 0) goto done;
        if (ast_family_end_optional(fam) &&
            (dict_set_c(vm, ns, "end_lineno", val_none()) < 0 || dict_set_c(vm, ns, "end_col_offset", val_none()) < 0))
            goto done;
    }
    for (int k = 0; k < d->nfields; k++)
        if (d->fields[k].quant == Q_OPT && dict_set_str(vm, ns, st->field[idx][k], val_none()) < 0) goto done;
    if (d->base < 0) {
        static const MethodDef methods[] = {{"__init__", ast_init, NATIVEF_METHOD},
                                            {"__reduce__", ast_reduce, NATIVEF_METHOD | ARITY_NOARGS},
                                            {NULL}};
        for (const MethodDef *m = methods; m->name; m++) {
            NativeObj *f = native_new(vm, m->name, m->fn, NULL, m->flags);
            if (!f || dict_set_c(vm, ns, m->name, val_obj(f)) < 0) goto done;
        }
    } else {
        StrObj *doc = d->doc ? str_from_c(vm, d->doc) : sum_doc(vm, idx);
        if (!doc || dict_set_c(vm, ns, "__doc__", val_obj(doc)) < 0) goto done;
    }
    TupleObj *bases = tuple_new(vm, 1);
    if (!bases) goto done;
    bases->items[0] = val_obj(d->base < 0 ? vm->t_object : st->cls[d->base]);
    vm_push_root(vm, val_obj(bases));
    Value cls = type_new_class(vm, vm->t_type, vm_intern_str(vm, d->name), bases, ns, 0, NULL, NULL);
    vm_pop_root(vm);
    if (val_is_null(cls)) goto done;
    st->cls[idx] = AS_TYPE(cls);
    /* the operators and contexts are shared instances in CPython's trees (Load() is one object) */
    if (d->nfields == 0 && d->kind > 0 && fam >= FAM_CTX && fam <= FAM_CMPOP) {
        Value inst = type_alloc_instance(vm, st->cls[idx]);
        if (val_is_null(inst)) goto done;
        st->singleton[idx] = inst;
    }
    rc = 0;
done:
    vm_pop_root(vm);
    return rc;
}

AstState *ast_state(VM *vm) {
    AstState *st = vm->ext[VM_EXT_AST];
    if (st && st->ready) return st;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) {
            vm_no_memory(vm);
            return NULL;
        }
        for (int i = 0; i < AST_NODE_COUNT; i++) st->singleton[i] = val_null();
        vm->ext[VM_EXT_AST] = st;
        vm->ext_trace[VM_EXT_AST] = state_trace;
        vm->ext_free[VM_EXT_AST] = state_free;
    }
    for (int k = 0; k < 4; k++)
        if (!(st->pos[k] = vm_intern_str(vm, pos_names[k]))) return NULL;
    for (int i = 0; i < AST_NODE_COUNT; i++)
        for (int k = 0; k < ast_node_defs[i].nfields; k++)
            if (!(st->field[i][k] = vm_intern_str(vm, ast_node_defs[i].fields[k].name))) return NULL;
    for (int i = 0; i < AST_NODE_COUNT; i++)
        if (!st->cls[i] && make_class(vm, st, i) < 0) return NULL;
    st->ready = true;
    return st;
}

/* ---- C tree -> objects ------------------------------------------------------------------------ */

typedef struct ToObj {
    VM *vm;
    AstState *st;
    int depth;
} ToObj;

/* Every Ast*Seq is {items, count}. */
typedef struct AnySeq {
    void *items;
    size_t count;
} AnySeq;

static Value node_obj(ToObj *t, AstFamily fam, int kind, const void *node);

static int set_attr(VM *vm, Value obj, StrObj *name, Value v) {
    DictObj **slot = obj_dict_slot(obj.as.o);
    if (!*slot) {
        vm_push_root(vm, v);
        DictObj *d = dict_new(vm);
        vm_pop_root(vm);
        if (!d) return -1;
        *slot = d;
    }
    return dict_set_str(vm, *slot, name, v);
}

static Value str_or_none(VM *vm, const char *s) {
    if (!s) return val_none();
    StrObj *o = str_new(vm, s, (int64_t)strlen(s));
    return o ? val_obj(o) : val_null();
}

Value ast_constant_to_obj(VM *vm, const AstConstant *k) {
    switch (k->type) {
    case AST_CONST_NONE: return val_none();
    case AST_CONST_BOOL: return val_bool(k->b);
    case AST_CONST_ELLIPSIS: return vm->ellipsis;
    case AST_CONST_INT: return val_int(k->i);
    case AST_CONST_FLOAT: return val_float(k->f);
    case AST_CONST_COMPLEX: return complex_new_value(vm, k->re, k->f);
    case AST_CONST_BIG_INT: {
        mpz_t z;
        mpz_init(z);
        Value v = val_null();
        if (mpz_set_str(z, k->s.data, 10) == 0) v = bigint_from_mpz(vm, z);
        else vm_raise(vm, vm->e_SystemError, "bad big int constant in AST");
        mpz_clear(z);
        return v;
    }
    case AST_CONST_STR: {
        StrObj *s = str_new(vm, k->s.data, (int64_t)k->s.len);
        return s ? val_obj(s) : val_null();
    }
    case AST_CONST_BYTES: {
        BytesObj *b = bytes_new(vm, (const uint8_t *)k->s.data, (int64_t)k->s.len);
        return b ? val_obj(b) : val_null();
    }
    }
    return vm_raise(vm, vm->e_SystemError, "unknown constant kind in AST");
}

/* A scalar or single node field at p (the C member the table's offset names). */
static Value one_obj(ToObj *t, AstFieldType type, const void *p) {
    VM *vm = t->vm;
    switch (type) {
    case T_IDENT:
    case T_STRING: return str_or_none(vm, *(const char *const *)p);
    case T_CONSTANT: return ast_constant_to_obj(vm, p);
    case T_INT: return val_int(*(const int *)p);
    case T_BOOLOP:
    case T_OPERATOR:
    case T_UNARYOP:
    case T_CMPOP:
    case T_CTX: {
        int i = ast_node_index(ast_field_family(type), *(const int *)p);
        if (i < 0 || val_is_null(t->st->singleton[i])) return vm_raise(vm, vm->e_SystemError, "bad operator in AST");
        return t->st->singleton[i];
    }
    default: {
        AstFamily fam = ast_field_family(type);
        const void *node = *(const void *const *)p;
        if (!node) return val_none();
        int kind;
        int ko = ast_family_kind_offset(fam);
        if (ko >= 0) kind = *(const int *)((const char *)node + ko);
        else kind = fam == FAM_EXCEPTHANDLER || fam == FAM_TYPE_IGNORE ? 1 : 0;
        return node_obj(t, fam, kind, node);
    }
    }
}

static Value seq_obj(ToObj *t, AstFieldType type, const void *p) {
    VM *vm = t->vm;
    const AnySeq *s = p;
    ListObj *l = list_new(vm, (int64_t)s->count);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (size_t i = 0; i < s->count; i++) {
        Value v;
        if (type == T_CMPOP) v = one_obj(t, type, (const AstCmpOp *)s->items + i);
        else v = one_obj(t, type, (void *const *)s->items + i);
        if (val_is_null(v) || list_append(vm, l, v) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    vm_pop_root(vm);
    return val_obj(l);
}

static Value node_obj(ToObj *t, AstFamily fam, int kind, const void *node) {
    VM *vm = t->vm;
    int idx = ast_node_index(fam, kind);
    if (idx < 0) return vm_raise(vm, vm->e_SystemError, "AST node of unknown kind %d", kind);
    if (++t->depth > PARSE_MAX_AST_DEPTH + 100) {
        t->depth--;
        return vm_raise(vm, vm->e_RecursionError, "maximum recursion depth exceeded during ast construction");
    }
    const AstNodeDef *d = &ast_node_defs[idx];
    Value obj = type_alloc_instance(vm, t->st->cls[idx]);
    if (val_is_null(obj)) {
        t->depth--;
        return val_null();
    }
    vm_push_root(vm, obj);
    for (int k = 0; k < d->nfields; k++) {
        const AstFieldDef *f = &d->fields[k];
        Value v;
        if (f->offset == AST_FIELD_ABSENT) {
            if (f->quant == Q_SEQ) {
                ListObj *l = list_new(vm, 0);
                v = l ? val_obj(l) : val_null();
            } else {
                v = val_none();
            }
        } else if (f->quant == Q_SEQ) {
            v = seq_obj(t, (AstFieldType)f->type, (const char *)node + f->offset);
        } else {
            v = one_obj(t, (AstFieldType)f->type, (const char *)node + f->offset);
        }
        if (val_is_null(v) || set_attr(vm, obj, t->st->field[idx][k], v) < 0) goto fail;
    }
    int po = ast_family_pos_offset(fam);
    if (po >= 0) {
        const int *pos = (const int *)((const char *)node + po);
        for (int k = 0; k < 4; k++)
            if (set_attr(vm, obj, t->st->pos[k], val_int(pos[k])) < 0) goto fail;
    }
    vm_pop_root(vm);
    t->depth--;
    return obj;
fail:
    vm_pop_root(vm);
    t->depth--;
    return val_null();
}

Value ast_module_to_obj(VM *vm, const AstModule *mod) {
    AstState *st = ast_state(vm);
    if (!st) return val_null();
    ToObj t = {vm, st, 0};
    return node_obj(&t, FAM_MOD, mod->kind, mod);
}

/* ---- the module ------------------------------------------------------------------------------- */

static int ast_module_init(VM *vm, Value mod) {
    AstState *st = ast_state(vm);
    if (!st) return -1;
    for (int i = 0; i < AST_NODE_COUNT; i++)
        if (module_set(vm, mod, ast_node_defs[i].name, val_obj(st->cls[i])) < 0) return -1;
    if (module_set(vm, mod, "PyCF_ONLY_AST", val_int(COMP_CF_ONLY_AST)) < 0 ||
        module_set(vm, mod, "PyCF_TYPE_COMMENTS", val_int(COMP_CF_TYPE_COMMENTS)) < 0 ||
        module_set(vm, mod, "PyCF_ALLOW_TOP_LEVEL_AWAIT", val_int(COMP_CF_ALLOW_TOP_LEVEL_AWAIT)) < 0)
        return -1;
    return 0;
}

void ast_module_register(VM *vm) { vm_register_native_module(vm, "_ast", ast_module_init); }
