/* src/tracer/ops.c — the data-model operations on trackers: operators, comparisons,
 * truthiness, indexing, iteration, membership, unpacking.  Constants fold at trace time (they
 * are immutable); symbolic numbers build lazy expressions; anything touching a tensor runs on
 * fakes and lands in the graph; tracked lists and dicts are edited on their trackers (and
 * marked modified for replay); everything else is a graph break, so eager semantics apply. */
#include <string.h>

#include "src/tracer/tracer.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"

static bool is_num_or_str_const(Tracer *tr, VT *v) {
    if (v->kind != VT_CONST) return false;
    Value x = v->value;
    return x.tag == VAL_INT || x.tag == VAL_FLOAT || x.tag == VAL_BOOL || val_is_str(tr->vm, x) ||
           val_is_type(tr->vm, x, tr->vm->t_int);
}

static bool is_symbolic_operand(Tracer *tr, VT *v) { return v->kind == VT_SYMNUM || is_num_or_str_const(tr, v); }

static VT *sym_new(Tracer *tr, SymOp op, int index, VT *a, VT *b, Value value) {
    VT *r = vt_new(tr, VT_SYMNUM);
    r->sym = op;
    r->index = index;
    r->a = a;
    r->b = b;
    r->value = value;
    trace_keep(tr, value);
    return r;
}

static bool has_tensor(VT *a, VT *b) { return (a && a->kind == VT_TENSOR) || (b && b->kind == VT_TENSOR); }

/* ---- binary operators ---------------------------------------------------------------------------- */

static bool is_const_tuple(Tracer *tr, VT *v) {
    return v->kind == VT_CONST && val_is_type(tr->vm, v->value, tr->vm->t_tuple);
}

/* A constant tuple as a tracked tuple of constants, so `() + args` concatenates like `args + ()`
 * (an attribute read off an object from outside, e.g. a partial's .args, is a constant). */
static VT *const_tuple_items(Tracer *tr, VT *v) {
    TupleObj *t = AS_TUPLE(v->value);
    VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(t->len + 1));
    for (int64_t i = 0; i < t->len; i++) items[i] = vt_const(tr, t->items[i]);
    return vt_tuple(tr, items, (int)t->len);
}

static TxStatus seq_concat(Tracer *tr, int op, VT *a, VT *b, VT **out) {
    bool inplace = op >= BINOP_INPLACE;
    int base = inplace ? op - BINOP_INPLACE : op;
    if (base == BINOP_ADD && a->kind == VT_TUPLE && is_const_tuple(tr, b)) b = const_tuple_items(tr, b);
    if (base == BINOP_ADD && b->kind == VT_TUPLE && is_const_tuple(tr, a)) a = const_tuple_items(tr, a);
    if (base == BINOP_ADD && a->kind == b->kind && (a->kind == VT_LIST || a->kind == VT_TUPLE)) {
        if (inplace && a->kind == VT_LIST) {
            if (a->mut == MUT_EXISTING && !a->source) return trace_break(tr, "+= on a list without a source");
            for (int i = 0; i < b->n; i++) vt_list_append(tr, a, vt_item(tr, b, i));
            if (a->mut == MUT_EXISTING) se_mark_modified(tr, a);
            *out = a;
            return TX_OK;
        }
        VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(a->n + b->n + 1));
        for (int i = 0; i < a->n; i++) items[i] = vt_item(tr, a, i);
        for (int i = 0; i < b->n; i++) items[a->n + i] = vt_item(tr, b, i);
        *out = a->kind == VT_LIST ? vt_list(tr, items, a->n + b->n) : vt_tuple(tr, items, a->n + b->n);
        return TX_OK;
    }
    if (base == BINOP_MULTIPLY && (a->kind == VT_LIST || a->kind == VT_TUPLE) && b->kind == VT_SYMNUM) b = tr_specialize(tr, b);
    if (base == BINOP_MULTIPLY && (a->kind == VT_LIST || a->kind == VT_TUPLE) && b->kind == VT_CONST &&
        val_is_intlike(b->value)) {
        int64_t k = val_as_intlike(b->value) < 0 ? 0 : val_as_intlike(b->value);
        if (k * a->n > 100000) return trace_break(tr, "sequence repetition too large to trace");
        VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(k * a->n + 1));
        for (int64_t r = 0; r < k; r++)
            for (int i = 0; i < a->n; i++) items[r * a->n + i] = vt_item(tr, a, i);
        if (inplace && a->kind == VT_LIST) {
            /* list *= n edits the list itself (aliases see it) */
            if (a->mut == MUT_EXISTING && !a->source) return trace_break(tr, "*= on a list without a source");
            int32_t n = (int32_t)(k * a->n);
            a->items = items;
            a->n = a->cap = n;
            if (a->mut == MUT_EXISTING) se_mark_modified(tr, a);
            *out = a;
            return TX_OK;
        }
        *out = a->kind == VT_LIST ? vt_list(tr, items, (int)(k * a->n)) : vt_tuple(tr, items, (int)(k * a->n));
        return TX_OK;
    }
    return trace_break(tr, "operator %s on %s and %s", binop_symbol[base], vt_kind_name(a->kind), vt_kind_name(b->kind));
}

TxStatus tr_binary(Tracer *tr, int op, VT *a, VT *b, VT **out) {
    VM *vm = tr->vm;
    a = vt_force(tr, a);
    b = vt_force(tr, b);
    if (has_tensor(a, b)) return fake_binary(tr, op, a, b, out);
    if (a->kind == VT_CONST && b->kind == VT_CONST) {
        Value r = vm_binary_op(vm, op, a->value, b->value);
        if (val_is_null(r)) {
            vm_clear_exc(vm);
            return trace_break(tr, "operator %s raised on constants", binop_symbol[op % BINOP_INPLACE]);
        }
        *out = vt_const(tr, r);
        return TX_OK;
    }
    if ((a->kind == VT_SYMNUM || b->kind == VT_SYMNUM) && is_symbolic_operand(tr, a) && is_symbolic_operand(tr, b)) {
        Value r = vm_binary_op(vm, op, a->value, b->value);
        if (val_is_null(r)) {
            vm_clear_exc(vm);
            return trace_break(tr, "operator %s raised on numbers", binop_symbol[op % BINOP_INPLACE]);
        }
        *out = sym_new(tr, SYM_BINOP, op % BINOP_INPLACE, a, b, r);
        return TX_OK;
    }
    if (a->kind == VT_SET || b->kind == VT_SET) return tr_set_binary(tr, op, a, b, out);
    if (a->kind == VT_LIST || a->kind == VT_TUPLE) return seq_concat(tr, op, a, b, out);
    if (b->kind == VT_TUPLE && is_const_tuple(tr, a)) return seq_concat(tr, op, a, b, out);   /* () + t */
    if ((b->kind == VT_LIST || b->kind == VT_TUPLE) && op == BINOP_MULTIPLY && (a->kind == VT_CONST || a->kind == VT_SYMNUM))
        return seq_concat(tr, op, b, a, out);   /* n * [x] */
    if (a->kind == VT_OBJECT || b->kind == VT_OBJECT) {
        /* a user class's dunder: inline it (no reflected fallback through NotImplemented) */
        VT *obj = a->kind == VT_OBJECT ? a : b;
        bool reflected = obj == b && a->kind != VT_OBJECT;
        int base = op % BINOP_INPLACE;
        StrObj *name = vm->binop_names[base][reflected ? 1 : (op >= BINOP_INPLACE ? 2 : 0)];
        TypeObj *t = vt_python_type(tr, obj);
        Value f = t ? type_lookup(vm, t, name) : val_null();
        if (val_is_null(f) && op >= BINOP_INPLACE && !reflected) {
            name = vm->binop_names[base][0];
            f = t ? type_lookup(vm, t, name) : val_null();
        }
        if (val_is_null(f) || f.as.o->type != vm->t_function) return trace_break(tr, "operator on a user object");
        VT *fn = vt_from_value(tr, f, NULL);
        VT *args[2] = {obj, obj == a ? b : a};
        TxStatus s = tr_call(tr, fn, 2, args, NULL, out);
        if (s) return s;
        if ((*out)->kind == VT_CONST && val_identical((*out)->value, vm->not_implemented))
            return trace_break(tr, "a dunder returned NotImplemented");
        return TX_OK;
    }
    return trace_break(tr, "operator %s on %s and %s", binop_symbol[op % BINOP_INPLACE], vt_kind_name(a->kind),
                    vt_kind_name(b->kind));
}

TxStatus tr_unary(Tracer *tr, int opcode, VT *a, VT **out) {
    VM *vm = tr->vm;
    a = vt_force(tr, a);
    if (a->kind == VT_TENSOR) {
        if (opcode == OP_UNARY_NOT) return trace_break(tr, "generic_jump TensorVariable()");
        return fake_unary(tr, opcode, a, out);
    }
    if (a->kind == VT_CONST) {
        Value r = vm_unary_op(vm, opcode, a->value);
        if (val_is_null(r)) {
            vm_clear_exc(vm);
            return trace_break(tr, "unary operator raised on a constant");
        }
        *out = vt_const(tr, r);
        return TX_OK;
    }
    if (a->kind == VT_SYMNUM) {
        Value r = vm_unary_op(vm, opcode, a->value);
        if (val_is_null(r)) {
            vm_clear_exc(vm);
            return trace_break(tr, "unary operator raised on a number");
        }
        SymOp s = opcode == OP_UNARY_NEGATIVE ? SYM_NEG : opcode == OP_UNARY_POSITIVE ? SYM_POS
                  : opcode == OP_UNARY_NOT ? SYM_NOT : SYM_LEAF;
        if (s == SYM_LEAF) {
            *out = vt_const(tr, r);
            (void)tr_specialize(tr, a);   /* the result is a constant: guard the leaves it came from */
            return TX_OK;
        }
        *out = sym_new(tr, s, 0, a, NULL, r);
        return TX_OK;
    }
    if (opcode == OP_UNARY_NOT) {
        int t;
        TxStatus s = tr_truthy(tr, a, &t);
        if (s) return s;
        *out = vt_const(tr, val_bool(!t));
        return TX_OK;
    }
    return trace_break(tr, "unary operator on %s", vt_kind_name(a->kind));
}

/* ---- comparisons ------------------------------------------------------------------------------------ */

TxStatus tr_compare(Tracer *tr, CompareOp op, VT *a, VT *b, VT **out) {
    VM *vm = tr->vm;
    a = vt_force(tr, a);
    b = vt_force(tr, b);
    if (has_tensor(a, b)) return fake_compare(tr, op, a, b, out);
    if ((a->kind == VT_SYMNUM || b->kind == VT_SYMNUM) && is_symbolic_operand(tr, a) && is_symbolic_operand(tr, b)) {
        Value r = vm_compare(vm, op, a->value, b->value);
        if (val_is_null(r)) {
            vm_clear_exc(vm);
            return trace_break(tr, "comparison raised on numbers");
        }
        *out = sym_new(tr, SYM_CMP, (int)op, a, b, r);
        return TX_OK;
    }
    if (a->kind == VT_SET || b->kind == VT_SET) return tr_set_compare(tr, op, a, b, out);
    Value av = vt_as_constant(tr, a), bv = vt_as_constant(tr, b);
    if (!val_is_null(av) && !val_is_null(bv)) {
        Value r = vm_compare(vm, op, av, bv);
        if (val_is_null(r)) {
            vm_clear_exc(vm);
            return trace_break(tr, "comparison raised on constants");
        }
        *out = vt_const(tr, r);
        return TX_OK;
    }
    if (op == CMP_EQ || op == CMP_NE) {
        /* objects without __eq__ compare by identity */
        TypeObj *ta = vt_python_type(tr, a), *tb = vt_python_type(tr, b);
        if (ta && tb && (a->kind == VT_OBJECT || a->kind == VT_NN_MODULE || a->kind == VT_FUNCTION ||
                         a->kind == VT_TYPE || a->kind == VT_MODULE || a->kind == VT_NATIVE)) {
            Value eqa = type_lookup(vm, ta, vm->special_names[SP_EQ]);
            Value obj_eq = type_lookup(vm, vm->t_object, vm->special_names[SP_EQ]);
            if (val_identical(eqa, obj_eq) || a->kind == VT_TYPE || a->kind == VT_FUNCTION) {
                bool same = a == b || (!val_is_null(a->value) && !val_is_null(b->value) && a->mut != MUT_NEW &&
                                       val_identical(a->value, b->value));
                *out = vt_const(tr, val_bool(op == CMP_EQ ? same : !same));
                return TX_OK;
            }
        }
        if (a->kind == VT_CONST && val_is_none(a->value) && b->kind != VT_CONST) {
            *out = vt_const(tr, val_bool(op == CMP_NE));
            return TX_OK;
        }
        if (b->kind == VT_CONST && val_is_none(b->value) && a->kind != VT_CONST) {
            *out = vt_const(tr, val_bool(op == CMP_NE));
            return TX_OK;
        }
    }
    return trace_break(tr, "comparison %s of %s and %s", cmp_symbol[op], vt_kind_name(a->kind), vt_kind_name(b->kind));
}

TxStatus tr_truthy(Tracer *tr, VT *v, int *out) {
    VM *vm = tr->vm;
    v = vt_force(tr, v);
    switch (v->kind) {
    case VT_CONST: {
        int r = vm_truthy(vm, v->value);
        if (r < 0) {
            vm_clear_exc(vm);
            return trace_break(tr, "truth value of a constant raised");
        }
        *out = r;
        return TX_OK;
    }
    case VT_SYMNUM: {
        VT *c = tr_specialize(tr, v);
        return tr_truthy(tr, c, out);
    }
    case VT_TUPLE: case VT_LIST: case VT_DICT: *out = v->n > 0; return TX_OK;
    case VT_DICT_VIEW: *out = vt_force(tr, v->a)->n > 0; return TX_OK;
    case VT_SET: *out = v->n > 0; return TX_OK;
    case VT_GENERATOR: case VT_PARTIAL: *out = 1; return TX_OK;
    case VT_TENSOR: return trace_break(tr, "generic_jump TensorVariable()");
    case VT_FUNCTION: case VT_METHOD: case VT_NATIVE: case VT_TYPE: case VT_MODULE: case VT_HANDLE:
        *out = 1;
        return TX_OK;
    case VT_OBJECT: case VT_NN_MODULE: {
        TypeObj *t = vt_python_type(tr, v);
        if (t && val_is_null(type_lookup(vm, t, vm->special_names[SP_BOOL])) &&
            val_is_null(type_lookup(vm, t, vm->special_names[SP_LEN]))) {
            *out = 1;
            return TX_OK;
        }
        return trace_break(tr, "truth value of an object with __bool__/__len__");
    }
    default: return trace_break(tr, "truth value of %s", vt_kind_name(v->kind));
    }
}

/* ---- indexing ---------------------------------------------------------------------------------------- */

static TxStatus const_index(Tracer *tr, VT *k, int64_t n, int64_t *out) {
    if (k->kind == VT_SYMNUM) k = tr_specialize(tr, k);
    if (k->kind != VT_CONST || !val_is_intlike(k->value)) return trace_break(tr, "index that is not a constant int");
    int64_t i = val_as_intlike(k->value);
    if (i < 0) i += n;
    if (i < 0 || i >= n) return trace_break(tr, "index out of range");
    *out = i;
    return TX_OK;
}

/* A slice of constants resolved against length n. */
static TxStatus const_slice(Tracer *tr, VT *k, int64_t n, int64_t *start, int64_t *stop, int64_t *step, int64_t *len) {
    VM *vm = tr->vm;
    Value parts[3];
    for (int i = 0; i < 3; i++) {
        VT *p = tr_specialize(tr, vt_item(tr, k, i));
        if (p->kind != VT_CONST) return trace_break(tr, "slice with a non-constant bound");
        parts[i] = p->value;
    }
    Value sl = slice_new(vm, parts[0], parts[1], parts[2]);
    if (val_is_null(sl)) return trace_error(tr);
    vm_push_root(vm, sl);
    int rc = slice_indices(vm, (SliceObj *)sl.as.o, n, start, stop, step, len);
    vm_pop_root(vm);
    if (rc < 0) {
        vm_clear_exc(vm);
        return trace_break(tr, "bad slice");
    }
    return TX_OK;
}

/* nn.ModuleList, nn.Sequential, or a subclass of one that iterates as it does (does not
 * redefine __iter__): iterating it yields its child modules in order */
static bool is_sequence_module(Tracer *tr, VT *m) {
    TypeObj *t = vt_python_type(tr, m);
    if (!t || !t->mro) return false;
    for (int64_t i = 0; i < t->mro->len; i++) {
        TypeObj *b = (TypeObj *)t->mro->items[i].as.o;
        if (strcmp(b->name->data, "ModuleList") != 0 && strcmp(b->name->data, "Sequential") != 0) continue;
        StrObj *iter = vm_intern_str(tr->vm, "__iter__");
        if (!iter) {
            vm_clear_exc(tr->vm);
            return false;
        }
        /* torch's own __iter__ (a class that merely shares the name, or redefines __iter__, is
         * iterated as Python would, by a graph break) */
        Value it = type_lookup(tr->vm, t, iter);
        return it.tag == VAL_OBJ && it.as.o->type == tr->vm->t_function &&
               (((FunctionObj *)it.as.o)->code->flags & CO_LIBRARY) &&
               val_identical(it, type_lookup(tr->vm, b, iter));
    }
    return false;
}

TxStatus tr_getitem(Tracer *tr, VT *c, VT *k, VT **out) {
    VM *vm = tr->vm;
    c = vt_force(tr, c);
    k = vt_force(tr, k);
    if (c->kind == VT_TENSOR) return fake_getitem(tr, c, k, out);
    if (c->kind == VT_LIST || c->kind == VT_TUPLE) {
        if (k->kind == VT_SLICE) {
            int64_t start, stop, step, len;
            TxStatus s = const_slice(tr, k, c->n, &start, &stop, &step, &len);
            if (s) return s;
            VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(len + 1));
            for (int64_t i = 0, j = start; i < len; i++, j += step) items[i] = vt_item(tr, c, (int)j);
            *out = c->kind == VT_LIST ? vt_list(tr, items, (int)len) : vt_tuple(tr, items, (int)len);
            return TX_OK;
        }
        int64_t i;
        TxStatus s = const_index(tr, k, c->n, &i);
        if (s) return s;
        *out = vt_item(tr, c, (int)i);
        return TX_OK;
    }
    if (c->kind == VT_DICT) {
        if (k->kind == VT_SYMNUM) k = tr_specialize(tr, k);
        int i = vt_dict_find(tr, c, k);
        if (i < 0) return trace_break(tr, "KeyError in a dict lookup");
        *out = vt_item(tr, c, i);
        return TX_OK;
    }
    if (c->kind == VT_CONST) {
        if (k->kind == VT_SYMNUM) k = tr_specialize(tr, k);
        Value kv = k->kind == VT_SLICE ? vt_to_value(tr, k, &(const char *){NULL}) : vt_as_constant(tr, k);
        if (val_is_null(kv)) return trace_break(tr, "indexing a constant with %s", vt_kind_name(k->kind));
        Value r = vm_getitem(vm, c->value, kv);
        if (val_is_null(r)) {
            vm_clear_exc(vm);
            return trace_break(tr, "indexing a constant raised");
        }
        *out = vt_const(tr, r);
        return TX_OK;
    }
    if (c->kind == VT_NN_MODULE && is_sequence_module(tr, c)) {
        VT *children;
        TxStatus s = tr_module_children(tr, c, &children);
        if (s) return s;
        if (k->kind == VT_SLICE) return trace_break(tr, "slicing a module container");
        int64_t i;
        s = const_index(tr, k, children->n, &i);
        if (s) return s;
        *out = vt_item(tr, children, (int)i);
        return TX_OK;
    }
    if (c->kind == VT_OBJECT || c->kind == VT_NN_MODULE) {
        TypeObj *t = vt_python_type(tr, c);
        Value f = t ? type_lookup(vm, t, vm->special_names[SP_GETITEM]) : val_null();
        if (val_is_null(f) || f.as.o->type != vm->t_function) return trace_break(tr, "indexing %s", vt_kind_name(c->kind));
        VT *args[2] = {c, k};
        return tr_call(tr, vt_from_value(tr, f, NULL), 2, args, NULL, out);
    }
    return trace_break(tr, "indexing %s", vt_kind_name(c->kind));
}

static TxStatus check_mutable(Tracer *tr, VT *c) {
    if (c->mut == MUT_EXISTING && !c->source) return trace_break(tr, "mutation of a container the tracer cannot name");
    return TX_OK;
}

TxStatus tr_setitem(Tracer *tr, VT *c, VT *k, VT *v) {
    c = vt_force(tr, c);
    k = vt_force(tr, k);
    if (c->kind == VT_TENSOR) return fake_setitem(tr, c, k, v);
    if (c->kind == VT_LIST) {
        TxStatus s = check_mutable(tr, c);
        if (s) return s;
        if (k->kind == VT_SLICE) {
            int64_t start, stop, step, len;
            s = const_slice(tr, k, c->n, &start, &stop, &step, &len);
            if (s) return s;
            VT *src = vt_force(tr, v);
            if (src->kind != VT_LIST && src->kind != VT_TUPLE) return trace_break(tr, "slice assignment from %s", vt_kind_name(src->kind));
            if (step != 1) {
                if (src->n != len) return trace_break(tr, "extended slice assignment of the wrong size");
                for (int64_t i = 0, j = start; i < len; i++, j += step) c->items[j] = vt_item(tr, src, (int)i);
            } else {
                if (stop < start) stop = start;
                VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(c->n - (stop - start) + src->n + 1));
                int m = 0;
                for (int i = 0; i < start; i++) items[m++] = c->items[i];
                for (int i = 0; i < src->n; i++) items[m++] = vt_item(tr, src, i);
                for (int i = (int)stop; i < c->n; i++) items[m++] = c->items[i];
                c->items = items;
                c->n = c->cap = m;
            }
        } else {
            int64_t i;
            s = const_index(tr, k, c->n, &i);
            if (s) return s;
            c->items[i] = v;
        }
        if (c->mut == MUT_EXISTING) se_mark_modified(tr, c);
        return TX_OK;
    }
    if (c->kind == VT_DICT) {
        TxStatus s = check_mutable(tr, c);
        if (s) return s;
        if (k->kind == VT_SYMNUM) k = tr_specialize(tr, k);
        if (k->kind != VT_CONST && (k->kind == VT_LIST || k->kind == VT_DICT || val_is_null(k->value)))
            return trace_break(tr, "dict key the tracer cannot hash");
        if (!val_is_null(k->value)) {
            int64_t h;
            if (vm_hash(tr->vm, k->value, &h) < 0) {
                vm_clear_exc(tr->vm);
                return trace_break(tr, "unhashable dict key");
            }
        }
        vt_dict_set(tr, c, k, v);
        if (c->mut == MUT_EXISTING) se_mark_modified(tr, c);
        return TX_OK;
    }
    return trace_break(tr, "item assignment on %s", vt_kind_name(c->kind));
}

TxStatus tr_delitem(Tracer *tr, VT *c, VT *k) {
    c = vt_force(tr, c);
    k = vt_force(tr, k);
    if (c->kind == VT_LIST) {
        TxStatus s = check_mutable(tr, c);
        if (s) return s;
        if (k->kind == VT_SLICE) {
            int64_t start, stop, step, len;
            s = const_slice(tr, k, c->n, &start, &stop, &step, &len);
            if (s) return s;
            if (step != 1) return trace_break(tr, "del of an extended slice");
            for (int64_t i = 0; i < len; i++) vt_list_remove_at(c, start);
        } else {
            int64_t i;
            s = const_index(tr, k, c->n, &i);
            if (s) return s;
            vt_list_remove_at(c, i);
        }
        if (c->mut == MUT_EXISTING) se_mark_modified(tr, c);
        return TX_OK;
    }
    if (c->kind == VT_DICT) {
        TxStatus s = check_mutable(tr, c);
        if (s) return s;
        if (k->kind == VT_SYMNUM) k = tr_specialize(tr, k);
        int i = vt_dict_find(tr, c, k);
        if (i < 0) return trace_break(tr, "KeyError in del");
        vt_dict_del_at(c, i);
        if (c->mut == MUT_EXISTING) se_mark_modified(tr, c);
        return TX_OK;
    }
    return trace_break(tr, "del on %s", vt_kind_name(c->kind));
}

/* ---- iteration ---------------------------------------------------------------------------------------- */

static VT *iter_over(Tracer *tr, VT *seq) {
    VT *it = vt_iter(tr, ITER_SEQ);
    it->a = seq;
    return it;
}

static TxStatus const_items(Tracer *tr, Value v, VT **out) {
    VM *vm = tr->vm;
    int64_t n;
    Value holder = val_null();
    Value *items = vm_sequence_items(vm, v, &n, &holder);
    if (!items) {
        vm_clear_exc(vm);
        return trace_break(tr, "iterating a constant raised");
    }
    if (n > 100000) return trace_break(tr, "iterating a constant too long to unroll");
    vm_push_root(vm, holder);
    VT **vts = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) vts[i] = vt_const(tr, items[i]);
    vm_pop_root(vm);
    *out = vt_tuple(tr, vts, (int)n);
    return TX_OK;
}

/* What a dict view yields now, as a tuple (the view reads the dict when it is used). */
static VT *dict_view_items(Tracer *tr, VT *view) {
    VT *d = vt_force(tr, view->a);
    VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(d->n + 1));
    for (int i = 0; i < d->n; i++) {
        if (view->index == DICT_VIEW_KEYS) items[i] = d->keys[i];
        else if (view->index == DICT_VIEW_VALUES) items[i] = vt_item(tr, d, i);
        else {
            VT *pair[2] = {d->keys[i], vt_item(tr, d, i)};
            items[i] = vt_tuple(tr, pair, 2);
        }
    }
    return vt_tuple(tr, items, d->n);
}

/* Iteration over a dict reads it at each step, as CPython's dict iterators do (a value stored
 * for a later key is seen); a change of size is a break, so eager raises its RuntimeError. */
static VT *dict_iter(Tracer *tr, VT *d, DictViewKind view) {
    VT *it = vt_iter(tr, ITER_DICT);
    it->a = d;
    it->view = view;
    it->size = d->n;
    return it;
}

TxStatus tr_iter(Tracer *tr, VT *v, VT **out) {
    v = vt_force(tr, v);
    switch (v->kind) {
    case VT_LIST: case VT_TUPLE: *out = iter_over(tr, v); return TX_OK;
    case VT_DICT_VIEW: *out = dict_iter(tr, vt_force(tr, v->a), (DictViewKind)v->index); return TX_OK;
    case VT_ITER: case VT_GENERATOR: *out = v; return TX_OK;
    case VT_SET: {
        VT *order;
        TxStatus s = tr_set_items(tr, v, &order);
        if (s) return s;
        VT *it = vt_iter(tr, ITER_SET);
        it->a = order;
        it->b = v;
        it->size = v->n;
        *out = it;
        return TX_OK;
    }
    case VT_DICT: *out = dict_iter(tr, v, DICT_VIEW_KEYS); return TX_OK;
    case VT_CONST: {
        VT *items = NULL;
        TxStatus s = const_items(tr, v->value, &items);
        if (s) return s;
        *out = iter_over(tr, items);
        return TX_OK;
    }
    case VT_TENSOR: {
        TensorMeta *m = &v->node->meta;
        if (!v->node->is_tensor || m->ndim == 0) return trace_break(tr, "iteration over a 0-d tensor");
        int64_t n = m->shape[0];
        if (n > 4096) return trace_break(tr, "iteration over a long tensor");
        VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++) {
            TxStatus s = fake_getitem(tr, v, vt_const(tr, val_int(i)), &items[i]);
            if (s) return s;
        }
        *out = iter_over(tr, vt_tuple(tr, items, (int)n));
        return TX_OK;
    }
    case VT_NN_MODULE:
        if (is_sequence_module(tr, v)) {
            VT *children;
            TxStatus s = tr_module_children(tr, v, &children);
            if (s) return s;
            *out = iter_over(tr, children);
            return TX_OK;
        }
        return trace_break(tr, "iteration over a module");
    default: return trace_break(tr, "iteration over %s", vt_kind_name(v->kind));
    }
}

TxStatus tr_next(Tracer *tr, VT *it, VT **out) {
    it = vt_force(tr, it);
    if (it->kind == VT_GENERATOR) return tr_generator_next(tr, it, out);
    if (it->kind != VT_ITER) return trace_break(tr, "next() on %s", vt_kind_name(it->kind));
    TxStatus s;
    *out = NULL;
    switch (it->iter) {
    case ITER_SEQ:
        if (it->index < it->a->n) *out = vt_item(tr, it->a, it->index++);
        return TX_OK;
    case ITER_SET:
        if (it->b->n != it->size) return trace_break(tr, "Set changed size during iteration");
        if (it->index < it->a->n) *out = vt_item(tr, it->a, it->index++);
        return TX_OK;
    case ITER_DICT: {
        VT *d = it->a;
        if (d->n != it->size) return trace_break(tr, "dictionary changed size during iteration");
        if (it->index >= d->n) return TX_OK;
        int i = it->index++;
        if (it->view == DICT_VIEW_KEYS) *out = d->keys[i];
        else if (it->view == DICT_VIEW_VALUES) *out = vt_item(tr, d, i);
        else {
            VT *pair[2] = {d->keys[i], vt_item(tr, d, i)};
            *out = vt_tuple(tr, pair, 2);
        }
        return TX_OK;
    }
    case ITER_ENUMERATE: {
        VT *x;
        if ((s = tr_next(tr, it->a, &x)) || !x) return s;
        VT *pair[2] = {vt_const(tr, val_int(val_as_intlike(it->b->value) + it->index)), x};
        it->index++;
        *out = vt_tuple(tr, pair, 2);
        return TX_OK;
    }
    case ITER_ZIP: case ITER_MAP: {
        /* a row while every iterator yields (the first exhausted one stops it, as CPython's) */
        VT **row = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(it->n + 1));
        for (int k = 0; k < it->n; k++)
            if ((s = tr_next(tr, it->items[k], &row[k])) || !row[k]) return s;
        it->index++;
        if (it->iter == ITER_ZIP) *out = vt_tuple(tr, row, it->n);
        else return tr_call(tr, it->b, it->n, row, NULL, out);
        return TX_OK;
    }
    case ITER_FILTER:
        for (;;) {
            VT *x, *keep;
            if ((s = tr_next(tr, it->a, &x)) || !x) return s;
            VT *pred = vt_force(tr, it->b);
            if (pred->kind == VT_CONST && val_is_none(pred->value)) keep = x;
            else if ((s = tr_call(tr, pred, 1, &x, NULL, &keep))) return s;
            int t;
            if ((s = tr_truthy(tr, keep, &t))) return s;
            if (t) {
                it->index++;
                *out = x;
                return TX_OK;
            }
        }
    }
    return trace_break(tr, "next() on an iterator of unknown kind");
}

TxStatus tr_iter_items(Tracer *tr, VT *v, VT **out) {
    VT *it;
    TxStatus s = tr_iter(tr, v, &it);
    if (s) return s;
    if (it->kind != VT_ITER || it->iter != ITER_SEQ) {   /* anything but a sequence's iterator: step it */
        VT *acc = vt_tuple(tr, NULL, 0), *x;
        while (!(s = tr_next(tr, it, &x)) && x) {
            if (acc->n == 100000) return trace_break(tr, "an iterator too long to unroll");
            vt_list_append(tr, acc, x);
        }
        if (s) return s;
        *out = acc;
        return TX_OK;
    }
    VT *seq = it->a;
    int start = it->index;
    VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(seq->n - start + 1));
    for (int i = start; i < seq->n; i++) items[i - start] = vt_item(tr, seq, i);
    it->index = seq->n;   /* consumed (when v was an iterator, it is it) */
    *out = vt_tuple(tr, items, seq->n - start);
    return TX_OK;
}

TxStatus tr_contains(Tracer *tr, VT *item, VT *container, int *out) {
    VM *vm = tr->vm;
    item = vt_force(tr, item);
    container = vt_force(tr, container);
    if (item->kind == VT_SYMNUM) item = tr_specialize(tr, item);
    if (container->kind == VT_DICT_VIEW)
        container = container->index == DICT_VIEW_KEYS ? vt_force(tr, container->a) : dict_view_items(tr, container);
    if (container->kind == VT_DICT) {
        *out = vt_dict_find(tr, container, item) >= 0;
        return TX_OK;
    }
    if (container->kind == VT_SET) return tr_set_contains(tr, item, container, out);
    if (container->kind == VT_LIST || container->kind == VT_TUPLE) {
        for (int i = 0; i < container->n; i++) {
            VT *e = vt_item(tr, container, i);
            if (e == item) {
                *out = 1;
                return TX_OK;
            }
            if (e->kind == VT_TENSOR || item->kind == VT_TENSOR) return trace_break(tr, "`in` with tensors");
            VT *r;
            TxStatus s = tr_compare(tr, CMP_EQ, item, e, &r);
            if (s) return s;
            int t;
            s = tr_truthy(tr, r, &t);
            if (s) return s;
            if (t) {
                *out = 1;
                return TX_OK;
            }
        }
        *out = 0;
        return TX_OK;
    }
    if (container->kind == VT_CONST && item->kind == VT_CONST) {
        int r = vm_contains(vm, container->value, item->value);
        if (r < 0) {
            vm_clear_exc(vm);
            return trace_break(tr, "`in` on a constant raised");
        }
        *out = r;
        return TX_OK;
    }
    return trace_break(tr, "`in` on %s", vt_kind_name(container->kind));
}

TxStatus tr_unpack(Tracer *tr, VT *seq, int n, VT **out) {
    seq = vt_force(tr, seq);
    if (seq->kind == VT_TUPLE || seq->kind == VT_LIST) {
        if (seq->n != n) return trace_break(tr, "unpacking %d values into %d", seq->n, n);
        for (int i = 0; i < n; i++) out[i] = vt_item(tr, seq, i);
        return TX_OK;
    }
    if (seq->kind == VT_CONST || seq->kind == VT_TENSOR || seq->kind == VT_DICT || seq->kind == VT_DICT_VIEW ||
        seq->kind == VT_SET || seq->kind == VT_ITER || seq->kind == VT_GENERATOR) {
        VT *items;
        TxStatus s = tr_iter_items(tr, seq, &items);
        if (s) return s;
        if (items->n != n) return trace_break(tr, "unpacking %d values into %d", items->n, n);
        for (int i = 0; i < n; i++) out[i] = vt_item(tr, items, i);
        return TX_OK;
    }
    return trace_break(tr, "unpacking %s", vt_kind_name(seq->kind));
}
