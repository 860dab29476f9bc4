/* src/tracer/symbolic.c — the symbolic interpreter: one handler per opcode, run over a frame's
 * own bytecode with a stack and locals of variable trackers.  The handler table is indexed by
 * vm/opcodes.def's enum; an opcode without a handler is a graph break that names it, so a new
 * opcode can never be skipped silently.  Handlers report TX_BREAK *before* changing any state
 * when they can, so a break at the root frame leaves the state of the instruction's start. */
#include <stdio.h>
#include <string.h>

#include "ember/autograd.h"
#include "src/tracer/tracer.h"
#include "vm/dict.h"
#include "vm/seq.h"
#include "vm/str.h"

#define MAX_STEPS 200000

#define TOP() (tx->stack[tx->sp - 1])
#define PEEK(n) (tx->stack[tx->sp - (n)])
#define PUSH(v) tx_push(tx, (v))
#define POP() tx_pop(tx)

static StrObj *name_at(Tx *tx, uint32_t i) { return AS_STR(tx->code->names->items[i]); }

/* ---- locals ----------------------------------------------------------------------------------------- */

/* Root-frame locals are wrapped lazily from the real frame on first read, so only what the
 * code uses is guarded. */
static VT *root_local(Tracer *tr, Tx *tx, int slot) {
    VT *v = tx->locals[slot];
    if (v) return vt_force(tr, v);
    if (tx != tr->root || slot >= tx->code->nlocals) return NULL;
    Value real = tr->frame->localsplus[slot];
    if (val_is_null(real)) return NULL;
    StrObj *name = AS_STR(tx->code->varnames->items[slot]);
    v = vt_from_value(tr, real, source_local(tr, slot, name));
    tx->locals[slot] = v;
    return v;
}

static TxStatus unbound_local(Tracer *tr, Tx *tx, int slot) {
    (void)tx;
    return trace_break(tr, "local variable '%s' referenced before assignment",
                    AS_STR(tx->code->varnames->items[slot])->data);
}

/* A cell or free slot (index relative to nlocals). */
static VT *cell_at(Tracer *tr, Tx *tx, uint32_t i) {
    int slot = tx->code->nlocals + (int)i;
    VT *c = tx->locals[slot];
    if (c) return c;
    /* the root frame's free variables: the function's closure cells (existing) */
    if (tx == tr->root && (int)i >= (int)tx->code->cellvars->len && tx->func && tx->func->closure) {
        int fi = (int)i - (int)tx->code->cellvars->len;
        if (fi < tx->func->closure->len) {
            Value cell = tx->func->closure->items[fi];
            c = vt_from_value(tr, cell, NULL);
            c->source = source_closure(tr, fi, AS_STR(tx->code->freevars->items[fi]));
            tx->locals[slot] = c;
            return c;
        }
    }
    return NULL;
}

/* The contents of a cell VT (pending store, new cell's value, or the existing cell's value). */
static TxStatus cell_load(Tracer *tr, VT *cell, VT **out) {
    StrObj *cc = vm_intern_str(tr->vm, "cell_contents");
    VT *p = se_load_attr(tr, cell, cc);
    if (p) {
        if (p->kind == VT_DELETED) return trace_break(tr, "read of a deleted cell");
        *out = p;
        return TX_OK;
    }
    if (cell->mut == MUT_NEW) {
        if (!cell->a) return trace_break(tr, "read of an empty cell");
        *out = cell->a;
        return TX_OK;
    }
    if (val_is_null(cell->value) || cell->value.as.o->type != tr->vm->t_cell) return trace_break(tr, "unknown cell");
    Value v = ((CellObj *)cell->value.as.o)->v;
    if (val_is_null(v)) return trace_break(tr, "free variable referenced before assignment");
    if (!cell->b) cell->b = vt_from_value(tr, v, cell->source);
    *out = cell->b;
    return TX_OK;
}

static void cell_store(Tracer *tr, VT *cell, VT *v) {
    if (cell->mut == MUT_NEW && !se_load_attr(tr, cell, vm_intern_str(tr->vm, "cell_contents"))) {
        cell->a = v;
        return;
    }
    se_store_attr(tr, cell, vm_intern_str(tr->vm, "cell_contents"), v);
}

/* ---- handlers ----------------------------------------------------------------------------------------- */

typedef TxStatus (*Handler)(Tracer *tr, Tx *tx, uint32_t arg);
#define H(name) static TxStatus h_##name(Tracer *tr, Tx *tx, uint32_t arg)

H(NOP) { (void)tr, (void)tx, (void)arg; return TX_OK; }
H(POP_TOP) { (void)tr, (void)arg; POP(); return TX_OK; }
H(PUSH_NULL) { (void)arg; PUSH(vt_new(tr, VT_NULLV)); return TX_OK; }
H(COPY) { (void)tr; PUSH(PEEK(arg)); return TX_OK; }
H(SWAP) {
    (void)tr;
    VT *t = TOP();
    TOP() = PEEK(arg);
    PEEK(arg) = t;
    return TX_OK;
}

H(LOAD_CONST) {
    PUSH(vt_const(tr, tx->code->consts->items[arg]));
    return TX_OK;
}

H(LOAD_FAST) {
    VT *v = root_local(tr, tx, (int)arg);
    if (!v) return unbound_local(tr, tx, (int)arg);
    PUSH(v);
    return TX_OK;
}

H(STORE_FAST) {
    VT *v = POP();
    tx->locals[arg] = v;
    if (v->kind == VT_HANDLE && !v->user_name) v->user_name = AS_STR(tx->code->varnames->items[arg]);
    return TX_OK;
}

H(DELETE_FAST) {
    if (!root_local(tr, tx, (int)arg)) return unbound_local(tr, tx, (int)arg);
    tx->locals[arg] = NULL;
    if (tx == tr->root) tx->locals[arg] = vt_new(tr, VT_DELETED);
    return TX_OK;
}

H(LOAD_FAST_LOAD_FAST) {
    TxStatus s = h_LOAD_FAST(tr, tx, arg & 0xFFFF);
    return s ? s : h_LOAD_FAST(tr, tx, arg >> 16);
}
H(LOAD_FAST_LOAD_CONST) {
    TxStatus s = h_LOAD_FAST(tr, tx, arg & 0xFFFF);
    return s ? s : h_LOAD_CONST(tr, tx, arg >> 16);
}
H(STORE_FAST_LOAD_FAST) {
    TxStatus s = h_STORE_FAST(tr, tx, arg & 0xFFFF);
    return s ? s : h_LOAD_FAST(tr, tx, arg >> 16);
}

/* The source of a global an inlined function from another module reads: its module's globals
 * dict (or the builtins dict it fell back to), held by reference, subscripted by the name.
 * With a source the value is guarded like the frame's own globals; without one a later change
 * of that global (a module-level flag, a state object a getter returns) went unseen and the
 * compiled code kept the value it was traced with. */
static Source *foreign_global_source(Tracer *tr, DictObj *dict, bool builtins, StrObj *name) {
    char label[160];
    Value mod = builtins ? val_null() : dict_get_c(tr->vm, dict, "__name__");
    if (builtins) snprintf(label, sizeof label, "___builtins");
    else if (val_is_str(tr->vm, mod)) snprintf(label, sizeof label, "___globals['%s']", AS_STR(mod)->data);
    else snprintf(label, sizeof label, "___globals");
    return source_item(tr, source_object(tr, val_obj(dict), label), val_obj(name));
}

/* Globals of the traced frame have sources (G['name']) and take part in side effects; an
 * inlined function from another module reads its own globals through foreign_global_source,
 * guarded, never written (STORE_GLOBAL there breaks the graph). */
static TxStatus load_global(Tracer *tr, Tx *tx, StrObj *name, VT **out) {
    VM *vm = tr->vm;
    bool own_globals = tx->globals == tr->frame->globals;
    if (own_globals) {
        VT *p = se_load_global(tr, name);
        if (p) {
            if (p->kind == VT_DELETED) return trace_break(tr, "read of a deleted global");
            *out = p;
            return TX_OK;
        }
    }
    Value v = dict_get_str(tx->globals, name);
    DictObj *from = tx->globals;
    if (val_is_null(v)) {
        Value bi = dict_get_c(vm, tx->globals, "__builtins__");
        DictObj *b = vm->builtins;
        if (bi.tag == VAL_OBJ && bi.as.o->type->layout == OBJ_LAYOUT_DICT) b = (DictObj *)bi.as.o;
        else if (bi.tag == VAL_OBJ && bi.as.o->type->layout == OBJ_LAYOUT_MODULE) b = ((ModuleObj *)bi.as.o)->dict;
        v = dict_get_str(b, name);
        if (val_is_null(v)) return trace_break(tr, "name '%s' is not defined", name->data);
        from = b;
        /* another module's function read a builtin: no global of its module may shadow it later
         * (the frame's own G['name'] resolves globals then builtins, so it needs no such guard) */
        if (!own_globals) guard_absent(tr, foreign_global_source(tr, tx->globals, false, name));
    }
    *out = vt_from_value(tr, v, own_globals ? source_global(tr, name)
                                            : foreign_global_source(tr, from, from != tx->globals, name));
    return TX_OK;
}

H(LOAD_GLOBAL) {
    VT *v = NULL;
    TxStatus s = load_global(tr, tx, name_at(tx, arg >> 1), &v);
    if (s) return s;
    if (arg & 1) PUSH(vt_new(tr, VT_NULLV));
    PUSH(v);
    return TX_OK;
}

H(STORE_GLOBAL) {
    if (tx->globals != tr->frame->globals) return trace_break(tr, "store to a global of another module");
    se_store_global(tr, name_at(tx, arg), POP());
    return TX_OK;
}

H(MAKE_CELL) {
    int slot = tx->code->nlocals + (int)arg;
    VT *c = vt_new(tr, VT_CELL);
    c->mut = MUT_NEW;
    /* a cell for an argument starts with the argument's value */
    int32_t a = tx->code->cell2arg ? tx->code->cell2arg[arg] : -1;
    if (a >= 0) c->a = root_local(tr, tx, a);
    tx->locals[slot] = c;
    return TX_OK;
}

H(COPY_FREE_VARS) {
    (void)arg;
    if (tx == tr->root) return TX_OK;   /* root free cells are read lazily (cell_at) */
    FunctionObj *fn = tx->func;
    /* an inlined function's closure: trackers of its cells were set up by the caller */
    (void)fn;
    return TX_OK;
}

H(LOAD_CLOSURE) {
    VT *c = cell_at(tr, tx, arg);
    if (!c) return trace_break(tr, "closure cell unavailable");
    PUSH(c);
    return TX_OK;
}

H(LOAD_DEREF) {
    VT *c = cell_at(tr, tx, arg);
    if (!c) return trace_break(tr, "closure cell unavailable");
    VT *v = NULL;
    TxStatus s = cell_load(tr, c, &v);
    if (s) return s;
    PUSH(v);
    return TX_OK;
}

H(STORE_DEREF) {
    VT *c = cell_at(tr, tx, arg);
    if (!c) return trace_break(tr, "closure cell unavailable");
    /* an existing cell is stored through its source: the frame's own free variable, or
     * fn.__closure__[i].cell_contents of an inlined function that residual code can load */
    if (c->mut == MUT_EXISTING && !c->source) return trace_break(tr, "store to a closure cell the tracer cannot name");
    cell_store(tr, c, POP());
    return TX_OK;
}

H(LOAD_ATTR) {
    VT *out;
    TxStatus s = tr_getattr(tr, TOP(), name_at(tx, arg), &out);
    if (s) return s;
    TOP() = out;
    return TX_OK;
}

H(STORE_ATTR) {
    TxStatus s = tr_setattr(tr, TOP(), name_at(tx, arg), PEEK(2));
    if (s) return s;
    tx->sp -= 2;
    return TX_OK;
}

H(DELETE_ATTR) {
    TxStatus s = tr_delattr(tr, TOP(), name_at(tx, arg));
    if (s) return s;
    tx->sp--;
    return TX_OK;
}

H(LOAD_METHOD) {
    VT *meth, *self;
    TxStatus s = tr_load_method(tr, TOP(), name_at(tx, arg), &meth, &self);
    if (s) return s;
    if (self->kind == VT_NULLV) {
        /* not a method: (NULL, attribute), as CPython lays it out */
        TOP() = self;
        PUSH(meth);
        return TX_OK;
    }
    TOP() = meth;
    PUSH(self);
    return TX_OK;
}

H(BINARY_SUBSCR) {
    (void)arg;
    VT *out;
    TxStatus s = tr_getitem(tr, PEEK(2), TOP(), &out);
    if (s) return s;
    tx->sp -= 2;
    PUSH(out);
    return TX_OK;
}

H(STORE_SUBSCR) {
    (void)arg;
    TxStatus s = tr_setitem(tr, PEEK(2), TOP(), PEEK(3));
    if (s) return s;
    tx->sp -= 3;
    return TX_OK;
}

H(DELETE_SUBSCR) {
    (void)arg;
    TxStatus s = tr_delitem(tr, PEEK(2), TOP());
    if (s) return s;
    tx->sp -= 2;
    return TX_OK;
}

H(BUILD_SLICE) {
    VT *v = vt_new(tr, VT_SLICE);
    v->items = trace_arena_alloc(&tr->arena, sizeof(VT *) * 3);
    v->n = 3;
    v->items[2] = arg == 3 ? POP() : vt_none(tr);
    v->items[1] = POP();
    v->items[0] = POP();
    PUSH(v);
    return TX_OK;
}

H(BINARY_OP) {
    VT *out;
    TxStatus s = tr_binary(tr, (int)arg, PEEK(2), TOP(), &out);
    if (s) return s;
    tx->sp -= 2;
    PUSH(out);
    return TX_OK;
}

static TxStatus unary(Tracer *tr, Tx *tx, int opcode) {
    VT *out;
    TxStatus s = tr_unary(tr, opcode, TOP(), &out);
    if (s) return s;
    TOP() = out;
    return TX_OK;
}
H(UNARY_NEGATIVE) { (void)arg; return unary(tr, tx, OP_UNARY_NEGATIVE); }
H(UNARY_POSITIVE) { (void)arg; return unary(tr, tx, OP_UNARY_POSITIVE); }
H(UNARY_NOT) { (void)arg; return unary(tr, tx, OP_UNARY_NOT); }
H(UNARY_INVERT) { (void)arg; return unary(tr, tx, OP_UNARY_INVERT); }

H(COMPARE_OP) {
    VT *out;
    TxStatus s = tr_compare(tr, (CompareOp)arg, PEEK(2), TOP(), &out);
    if (s) return s;
    tx->sp -= 2;
    PUSH(out);
    return TX_OK;
}

/* `is`: decidable when both sides are constants, or trackers of known identity. */
H(IS_OP) {
    VT *a = vt_force(tr, PEEK(2)), *b = vt_force(tr, TOP());
    int same;
    if (tr_fn_grad_none_test(tr, a) || tr_fn_grad_none_test(tr, b)) return TX_BREAK;
    if (a == b) same = 1;
    else if (a->kind == VT_CONST && b->kind == VT_CONST) same = val_identical(a->value, b->value);
    else if (a->kind == VT_SYMNUM || b->kind == VT_SYMNUM) {
        VT *sa = a->kind == VT_SYMNUM ? tr_specialize(tr, a) : a;
        VT *sb = b->kind == VT_SYMNUM ? tr_specialize(tr, b) : b;
        same = sa->kind == VT_CONST && sb->kind == VT_CONST && val_identical(sa->value, sb->value);
    } else if (a->kind == VT_CONST || b->kind == VT_CONST) {
        /* a tracked non-constant is never the same object as a constant (None, True...) */
        VT *c = a->kind == VT_CONST ? a : b, *o = a->kind == VT_CONST ? b : a;
        if (o->kind == VT_NULLV || o->kind == VT_LAZY) return trace_break(tr, "`is` on an unknown value");
        same = !val_is_null(o->value) && o->kind != VT_TUPLE && val_identical(o->value, c->value);
    } else if (!val_is_null(a->value) && !val_is_null(b->value) && a->mut != MUT_NEW && b->mut != MUT_NEW &&
               a->kind != VT_TUPLE && b->kind != VT_TUPLE) {
        same = val_identical(a->value, b->value);
    } else {
        same = 0;   /* distinct trackers of objects made in the region, or tensors with distinct nodes */
        if (a->kind == VT_TENSOR && b->kind == VT_TENSOR) same = a->fake.as.o == b->fake.as.o;
    }
    if (arg) same = !same;
    tx->sp -= 2;
    PUSH(vt_const(tr, val_bool(same)));
    return TX_OK;
}

H(CONTAINS_OP) {
    int r;
    TxStatus s = tr_contains(tr, PEEK(2), TOP(), &r);
    if (s) return s;
    if (arg) r = !r;
    tx->sp -= 2;
    PUSH(vt_const(tr, val_bool(r)));
    return TX_OK;
}

/* ---- control flow ------------------------------------------------------------------------------------ */

H(JUMP) {
    (void)tr;
    tx->ip = (int32_t)arg - 1;   /* the loop adds 1 */
    return TX_OK;
}

static TxStatus cond_jump(Tracer *tr, Tx *tx, uint32_t target, bool jump_if, bool pop_always) {
    VT *v = TOP();
    int t;
    TxStatus s = tr_truthy(tr, v, &t);
    if (s) return s;
    bool jump = (t != 0) == jump_if;
    if (pop_always || !jump) tx->sp--;
    if (jump) tx->ip = (int32_t)target - 1;
    return TX_OK;
}

H(POP_JUMP_IF_FALSE) { return cond_jump(tr, tx, arg, false, true); }
H(POP_JUMP_IF_TRUE) { return cond_jump(tr, tx, arg, true, true); }
H(JUMP_IF_FALSE_OR_POP) { return cond_jump(tr, tx, arg, false, false); }
H(JUMP_IF_TRUE_OR_POP) { return cond_jump(tr, tx, arg, true, false); }

static TxStatus none_jump(Tracer *tr, Tx *tx, uint32_t target, bool if_none) {
    VT *v = vt_force(tr, TOP());
    int is_none;
    if (tr_fn_grad_none_test(tr, v)) return TX_BREAK;
    if (v->kind == VT_CONST) is_none = val_is_none(v->value);
    else if (v->kind == VT_SYMNUM || v->kind == VT_TENSOR || v->kind == VT_LIST || v->kind == VT_TUPLE ||
             v->kind == VT_DICT || v->kind == VT_OBJECT || v->kind == VT_FUNCTION || v->kind == VT_NN_MODULE ||
             v->kind == VT_METHOD || v->kind == VT_NATIVE || v->kind == VT_TYPE || v->kind == VT_MODULE ||
             v->kind == VT_HANDLE || v->kind == VT_DICT_VIEW || v->kind == VT_SET || v->kind == VT_GENERATOR ||
             v->kind == VT_PARTIAL)
        is_none = 0;
    else return trace_break(tr, "`is None` on %s", vt_kind_name(v->kind));
    tx->sp--;
    if (is_none == (int)if_none) tx->ip = (int32_t)target - 1;
    return TX_OK;
}
H(POP_JUMP_IF_NONE) { return none_jump(tr, tx, arg, true); }
H(POP_JUMP_IF_NOT_NONE) { return none_jump(tr, tx, arg, false); }

H(GET_ITER) {
    (void)arg;
    VT *out;
    TxStatus s = tr_iter(tr, TOP(), &out);
    if (s) return s;
    TOP() = out;
    return TX_OK;
}

H(FOR_ITER) {
    VT *item;
    TxStatus s = tr_next(tr, TOP(), &item);
    if (s) return s;
    if (!item) {
        tx->sp--;
        tx->ip = (int32_t)arg - 1;
        return TX_OK;
    }
    PUSH(item);
    return TX_OK;
}

/* A generator's frame (run by next(), calls.c / ops.c) stops here with the value it yields;
 * resuming pushes what next() sends (None) and continues after. */
H(YIELD_VALUE) {
    (void)arg;
    if (tx == tr->root) return trace_break(tr, "yield in the compiled frame");
    tx->yielded = POP();
    tx->suspended = true;
    return TX_OK;
}

H(RETURN_VALUE) {
    (void)arg;
    tx->return_value = POP();
    tx->done = true;
    (void)tr;
    return TX_OK;
}

/* ---- building ----------------------------------------------------------------------------------------- */

H(BUILD_TUPLE) {
    VT *v = vt_tuple(tr, &tx->stack[tx->sp - (int)arg], (int)arg);
    tx->sp -= (int)arg;
    PUSH(v);
    return TX_OK;
}

H(BUILD_LIST) {
    VT *v = vt_list(tr, &tx->stack[tx->sp - (int)arg], (int)arg);
    tx->sp -= (int)arg;
    PUSH(v);
    return TX_OK;
}

static TxStatus check_hashable_key(Tracer *tr, VT *k) {
    k = vt_force(tr, k);
    if (k->kind == VT_CONST) return TX_OK;
    if (k->kind == VT_SYMNUM) return trace_break(tr, "a symbolic number as a dict key");
    if (k->kind == VT_LIST || k->kind == VT_DICT) return trace_break(tr, "unhashable dict key");
    if (val_is_null(k->value) && k->kind != VT_TENSOR) return trace_break(tr, "dict key of unknown identity");
    return TX_OK;
}

H(BUILD_SET) {
    VT *set = tr_set_new(tr);
    for (int i = (int)arg; i >= 1; i--) {
        TxStatus st = tr_set_add(tr, set, PEEK(i));
        if (st) return st;
    }
    tx->sp -= (int)arg;
    PUSH(set);
    return TX_OK;
}

H(SET_ADD) {
    TxStatus st = tr_set_add(tr, PEEK(arg + 1), TOP());
    if (st) return st;
    tx->sp--;
    return TX_OK;
}

H(SET_UPDATE) {
    VT *items;
    TxStatus st = tr_iter_items(tr, TOP(), &items);
    if (st) return st;
    for (int i = 0; i < items->n; i++)
        if ((st = tr_set_add(tr, PEEK(arg + 1), vt_item(tr, items, i)))) return st;
    tx->sp--;
    return TX_OK;
}

H(BUILD_MAP) {
    int n = (int)arg;
    for (int i = 0; i < n; i++)
        if (check_hashable_key(tr, tx->stack[tx->sp - 2 * n + 2 * i])) return TX_BREAK;
    VT *d = vt_dict(tr);
    for (int i = 0; i < n; i++) {
        VT *k = vt_force(tr, tx->stack[tx->sp - 2 * n + 2 * i]);
        vt_dict_set(tr, d, k->kind == VT_CONST ? k : k, tx->stack[tx->sp - 2 * n + 2 * i + 1]);
    }
    tx->sp -= 2 * n;
    PUSH(d);
    return TX_OK;
}

H(BUILD_CONST_KEY_MAP) {
    VT *keys = vt_force(tr, TOP());
    if (keys->kind != VT_CONST || !val_is_type(tr->vm, keys->value, tr->vm->t_tuple))
        return trace_break(tr, "BUILD_CONST_KEY_MAP without constant keys");
    TupleObj *kt = AS_TUPLE(keys->value);
    int n = (int)arg;
    VT *d = vt_dict(tr);
    for (int i = 0; i < n; i++) vt_dict_set(tr, d, vt_const(tr, kt->items[i]), tx->stack[tx->sp - 1 - n + i]);
    tx->sp -= n + 1;
    PUSH(d);
    return TX_OK;
}

H(BUILD_STRING) {
    VM *vm = tr->vm;
    int n = (int)arg;
    for (int i = 0; i < n; i++) {
        VT *p = vt_force(tr, tx->stack[tx->sp - n + i]);
        if (p->kind != VT_CONST || !val_is_str(vm, p->value)) return trace_break(tr, "f-string of a non-constant");
    }
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < n; i++) sb_add_str(&b, AS_STR(vt_force(tr, tx->stack[tx->sp - n + i])->value));
    StrObj *s = sb_finish(vm, &b);
    if (!s) return trace_error(tr);
    tx->sp -= n;
    PUSH(vt_const(tr, val_obj(s)));
    return TX_OK;
}

H(FORMAT_VALUE) {
    VM *vm = tr->vm;
    bool has_spec = arg & 4;
    VT *spec = has_spec ? vt_force(tr, TOP()) : NULL;
    VT *v = vt_force(tr, has_spec ? PEEK(2) : TOP());
    if (v->kind == VT_SYMNUM) v = tr_specialize(tr, v);
    if (v->kind != VT_CONST || (spec && spec->kind != VT_CONST)) return trace_break(tr, "formatting a %s", vt_kind_name(v->kind));
    Value x = v->value;
    int conv = (int)(arg & 3);
    if (conv == 1) x = vm_str(vm, x);
    else if (conv == 2) x = vm_repr(vm, x);
    else if (conv == 3) x = vm_ascii(vm, x);
    if (val_is_null(x)) return trace_error(tr);
    vm_push_root(vm, x);
    Value r = vm_format(vm, x, spec ? spec->value : val_obj(vm->empty_str));
    vm_pop_root(vm);
    if (val_is_null(r)) return trace_error(tr);
    tx->sp -= has_spec ? 2 : 1;
    PUSH(vt_const(tr, r));
    return TX_OK;
}

H(LIST_APPEND) {
    VT *list = PEEK(arg + 1);
    vt_list_append(tr, list, POP());
    return TX_OK;
}

H(LIST_EXTEND) {
    VT *list = PEEK(arg + 1);
    VT *it = vt_force(tr, TOP());
    if (it->kind != VT_TUPLE && it->kind != VT_LIST) {
        if (it->kind == VT_CONST && val_is_type(tr->vm, it->value, tr->vm->t_tuple)) {
            TupleObj *t = AS_TUPLE(it->value);
            for (int64_t i = 0; i < t->len; i++) vt_list_append(tr, list, vt_const(tr, t->items[i]));
            tx->sp--;
            return TX_OK;
        }
        return trace_break(tr, "list.extend of %s", vt_kind_name(it->kind));
    }
    for (int i = 0; i < it->n; i++) vt_list_append(tr, list, vt_item(tr, it, i));
    tx->sp--;
    return TX_OK;
}

H(LIST_TO_TUPLE) {
    (void)arg;
    VT *l = vt_force(tr, TOP());
    TOP() = vt_tuple(tr, l->items, l->n);
    return TX_OK;
}

H(MAP_ADD) {
    VT *d = PEEK(arg + 2);
    if (check_hashable_key(tr, PEEK(2))) return TX_BREAK;
    vt_dict_set(tr, d, vt_force(tr, PEEK(2)), TOP());
    tx->sp -= 2;
    return TX_OK;
}

static TxStatus dict_merge(Tracer *tr, Tx *tx, uint32_t arg, bool check_dupes) {
    VT *d = PEEK(arg + 1);
    VT *src = vt_force(tr, TOP());
    if (src->kind != VT_DICT) return trace_break(tr, "** of %s", vt_kind_name(src->kind));
    for (int i = 0; i < src->n; i++) {
        if (check_dupes && vt_dict_find(tr, d, src->keys[i]) >= 0) return trace_break(tr, "duplicate keyword argument");
    }
    for (int i = 0; i < src->n; i++) vt_dict_set(tr, d, src->keys[i], vt_item(tr, src, i));
    tx->sp--;
    return TX_OK;
}
H(DICT_UPDATE) { return dict_merge(tr, tx, arg, false); }
H(DICT_MERGE) { return dict_merge(tr, tx, arg, true); }

H(UNPACK_SEQUENCE) {
    VT **out = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(arg + 1));
    TxStatus s = tr_unpack(tr, TOP(), (int)arg, out);
    if (s) return s;
    tx->sp--;
    for (int i = (int)arg - 1; i >= 0; i--) PUSH(out[i]);
    return TX_OK;
}

H(UNPACK_EX) {
    int before = (int)(arg & 0xFF), after = (int)(arg >> 8);
    VT *seq = vt_force(tr, TOP());
    if (seq->kind != VT_TUPLE && seq->kind != VT_LIST) return trace_break(tr, "starred unpacking of %s", vt_kind_name(seq->kind));
    if (seq->n < before + after) return trace_break(tr, "not enough values to unpack");
    tx->sp--;
    for (int i = seq->n - 1; i >= seq->n - after; i--) PUSH(vt_item(tr, seq, i));
    VT **mid = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(seq->n + 1));
    int nm = 0;
    for (int i = before; i < seq->n - after; i++) mid[nm++] = vt_item(tr, seq, i);
    PUSH(vt_list(tr, mid, nm));
    for (int i = before - 1; i >= 0; i--) PUSH(vt_item(tr, seq, i));
    return TX_OK;
}

/* ---- functions and calls ------------------------------------------------------------------------------- */

H(MAKE_FUNCTION) {
    VT *fn = vt_new(tr, VT_FUNCTION);
    fn->mut = MUT_NEW;
    VT *code = vt_force(tr, POP());
    fn->code = code->value;
    if (arg & 8) fn->closure = POP();
    if (arg & 4) (void)POP();   /* annotations: not kept */
    if (arg & 2) fn->kwdefaults = POP();
    if (arg & 1) fn->defaults = POP();
    fn->a = vt_const(tr, val_obj(tx->globals));   /* the globals it will run with */
    PUSH(fn);
    return TX_OK;
}

H(KW_NAMES) {
    (void)tr;
    tx->kwnames = AS_TUPLE(tx->code->consts->items[arg]);
    return TX_OK;
}

H(CALL) {
    TupleObj *kw = tx->kwnames;
    tx->kwnames = NULL;
    int n = (int)arg;
    VT *callable;
    VT **args;
    int argc;
    VT *below = vt_force(tr, PEEK(n + 2));
    if (below->kind != VT_NULLV) {
        callable = below;
        args = &tx->stack[tx->sp - n - 1];
        argc = n + 1;
    } else {
        callable = PEEK(n + 1);
        args = &tx->stack[tx->sp - n];
        argc = n;
    }
    VT *out = NULL;
    /* tr_call counts positional arguments; the keyword values follow them */
    TxStatus s = tr_call(tr, callable, argc - (kw ? (int)kw->len : 0), args, kw, &out);
    if (s) {
        tx->kwnames = kw;
        return s;
    }
    tx->sp -= n + 2;
    PUSH(out);
    return TX_OK;
}

H(CALL_FUNCTION_EX) {
    bool has_kw = arg & 1;
    VT *kwargs = has_kw ? vt_force(tr, TOP()) : NULL;
    VT *args = vt_force(tr, has_kw ? PEEK(2) : TOP());
    VT *callable = has_kw ? PEEK(3) : PEEK(2);
    if (args->kind != VT_TUPLE && args->kind != VT_LIST) {
        if (args->kind == VT_CONST && val_is_type(tr->vm, args->value, tr->vm->t_tuple)) {
            TupleObj *t = AS_TUPLE(args->value);
            VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(t->len + 1));
            for (int64_t i = 0; i < t->len; i++) items[i] = vt_const(tr, t->items[i]);
            args = vt_tuple(tr, items, (int)t->len);
        } else {
            return trace_break(tr, "f(*args) with %s", vt_kind_name(args->kind));
        }
    }
    if (kwargs && kwargs->kind != VT_DICT) return trace_break(tr, "f(**kwargs) with %s", vt_kind_name(kwargs->kind));
    int nkw = kwargs ? kwargs->n : 0;
    int argc = args->n + nkw;
    VT **all = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(argc + 1));
    for (int i = 0; i < args->n; i++) all[i] = vt_item(tr, args, i);
    TupleObj *kwn = NULL;
    if (nkw) {
        kwn = tuple_new(tr->vm, nkw);
        if (!kwn) return trace_error(tr);
        trace_keep(tr, val_obj(kwn));
        for (int i = 0; i < nkw; i++) {
            VT *k = vt_force(tr, kwargs->keys[i]);
            if (k->kind != VT_CONST || !val_is_str(tr->vm, k->value)) return trace_break(tr, "keywords must be strings");
            kwn->items[i] = k->value;
            all[args->n + i] = vt_item(tr, kwargs, i);
        }
    }
    VT *out;
    TxStatus s = tr_call(tr, callable, argc - nkw, all, kwn, &out);
    if (s) return s;
    tx->sp -= has_kw ? 4 : 3;
    PUSH(out);
    return TX_OK;
}

/* ---- with ---------------------------------------------------------------------------------------------- */

H(BEFORE_WITH) {
    (void)arg;
    VT *mgr = vt_force(tr, TOP());
    VM *vm = tr->vm;
    if (mgr->kind == VT_GRAD_MODE) {
        /* torch.no_grad() & co: switch the mode now (the fakes record under it) */
        VT *exit = vt_new(tr, VT_METHOD);
        exit->a = mgr;
        exit->user_name = vm_intern_str(vm, "__exit__");
        /* set_grad_enabled(b) switched the mode when it was made; no_grad() switches on entry */
        if (!mgr->modified) mgr->index = ag_set_grad_enabled(mgr->flag) ? 1 : 0;
        TOP() = exit;
        PUSH(vt_none(tr));
        return TX_OK;
    }
    if (mgr->kind == VT_OBJECT) {
        VT *enter, *self, *exit, *eself;
        TxStatus s = tr_load_method(tr, mgr, vm_intern_str(vm, "__enter__"), &enter, &self);
        if (s) return s;
        s = tr_load_method(tr, mgr, vm_intern_str(vm, "__exit__"), &exit, &eself);
        if (s) return s;
        VT *bound_exit = exit;
        if (eself->kind != VT_NULLV) {
            bound_exit = vt_new(tr, VT_METHOD);
            bound_exit->a = eself;
            bound_exit->b = exit;
        }
        VT *r;
        VT *args[1] = {self};
        s = self->kind != VT_NULLV ? tr_call(tr, enter, 1, args, NULL, &r) : tr_call(tr, enter, 0, NULL, NULL, &r);
        if (s) return s;
        TOP() = bound_exit;
        PUSH(r);
        return TX_OK;
    }
    return trace_break(tr, "with %s", vt_kind_name(mgr->kind));
}

/* ---- exceptions (exceptions.c) ---------------------------------------------------------------------- */

H(RAISE_VARARGS) {
    if (arg == 0) {
        if (!tr->handled || vt_force(tr, tr->handled)->kind != VT_EXCEPTION) return trace_break(tr, "bare raise");
        return tr_raise(tr, tr->handled, NULL);
    }
    /* the operands stay: a handler cuts the stack to its depth, and an exception that escapes is
     * a break at this instruction, which runs again natively */
    return tr_raise(tr, PEEK(arg), arg == 2 ? PEEK(1) : NULL);
}

H(RERAISE) {
    (void)arg;
    VT *exc = vt_force(tr, TOP());
    if (exc->kind != VT_EXCEPTION) return trace_break(tr, "re-raise of %s", vt_kind_name(exc->kind));
    tr->raised = exc;
    return TX_RAISE;
}

H(PUSH_EXC_INFO) {
    (void)arg;
    if (!tr->handled) {
        Value h = tr->vm->handled;
        tr->handled = vt_from_value(tr, val_is_null(h) ? val_none() : h, NULL);
    }
    VT *e = TOP();
    TOP() = tr->handled;
    PUSH(e);
    tr->handled = e;
    return TX_OK;
}

H(POP_EXCEPT) {
    (void)arg;
    tr->handled = POP();
    return TX_OK;
}

H(CHECK_EXC_MATCH) {
    (void)arg;
    int m;
    TxStatus st = tr_exc_match(tr, PEEK(2), TOP(), &m);
    if (st) return st;
    TOP() = vt_const(tr, val_bool(m));
    return TX_OK;
}

H(LOAD_ASSERTION_ERROR) {
    (void)arg;
    PUSH(vt_from_value(tr, val_obj(tr->vm->e_AssertionError), NULL));
    return TX_OK;
}

/* (exit prev exc -- exit prev exc exit(type(exc), exc, None)): a with block's __exit__ on the way
 * out of an exception (the traceback object does not exist in the region: None) */
H(WITH_EXCEPT_START) {
    (void)arg;
    VT *exc = TOP();
    TypeObj *t = vt_python_type(tr, exc);
    if (!t) return trace_break(tr, "__exit__ of an exception of unknown type");
    VT *args[3] = {vt_from_value(tr, val_obj(t), NULL), exc, vt_none(tr)};
    VT *r;
    TxStatus st = tr_call(tr, PEEK(3), 3, args, NULL, &r);
    if (st) return st;
    PUSH(r);
    return TX_OK;
}

/* ---- imports --------------------------------------------------------------------------------------------- */

H(IMPORT_NAME) {
    VM *vm = tr->vm;
    VT *fromlist = vt_force(tr, TOP());
    VT *level = vt_force(tr, PEEK(2));
    if (level->kind != VT_CONST || !val_is_int(level->value) || level->value.as.i != 0)
        return trace_break(tr, "relative import");
    StrObj *name = name_at(tx, arg);
    Value m = dict_get_str(vm->modules, name);
    if (val_is_null(m)) return trace_break(tr, "import of a module not yet loaded");
    Value r = m;
    StrObj *bound = name;
    if (fromlist->kind == VT_CONST && val_is_none(fromlist->value)) {
        /* `import a.b` binds a */
        const char *dot = strchr(name->data, '.');
        if (dot) {
            StrObj *top = str_new(vm, name->data, dot - name->data);
            if (!top) return trace_error(tr);
            bound = str_intern(vm, top);
            r = dict_get_str(vm->modules, bound);
            if (val_is_null(r)) return trace_break(tr, "import of a module not yet loaded");
        }
    }
    tx->sp -= 2;
    /* sourced as sys.modules[name], so what is read from it (sys.modules.get(...) of a module
     * imported later, a module attribute that changes) is guarded as a global's would be */
    Source *src = source_item(tr, source_object(tr, val_obj(vm->modules), "___sys_modules"), val_obj(bound));
    VT *v = vt_from_value(tr, r, src);
    PUSH(v);
    return TX_OK;
}

H(IMPORT_FROM) {
    VT *mod = TOP();
    VT *out;
    TxStatus s = tr_getattr(tr, mod, name_at(tx, arg), &out);
    if (s) return s;
    PUSH(out);
    return TX_OK;
}

/* ---- the table -------------------------------------------------------------------------------------------- */

/* Every opcode the tracer understands.  Opcodes absent from this list (yield from, class bodies,
 * module-level names) have no handler: reaching one is a graph break naming it. */
#define TRACED_OPS(X) \
    X(NOP) X(POP_TOP) X(PUSH_NULL) X(COPY) X(SWAP) X(LOAD_CONST) X(LOAD_FAST) X(STORE_FAST) X(DELETE_FAST) \
    X(LOAD_FAST_LOAD_FAST) X(LOAD_FAST_LOAD_CONST) X(STORE_FAST_LOAD_FAST) X(LOAD_GLOBAL) X(STORE_GLOBAL) \
    X(MAKE_CELL) X(COPY_FREE_VARS) X(LOAD_CLOSURE) X(LOAD_DEREF) X(STORE_DEREF) X(LOAD_ATTR) X(STORE_ATTR) \
    X(DELETE_ATTR) X(LOAD_METHOD) X(BINARY_SUBSCR) X(STORE_SUBSCR) X(DELETE_SUBSCR) X(BUILD_SLICE) X(BINARY_OP) \
    X(UNARY_NEGATIVE) X(UNARY_POSITIVE) X(UNARY_NOT) X(UNARY_INVERT) X(COMPARE_OP) X(IS_OP) X(CONTAINS_OP) \
    X(JUMP) X(POP_JUMP_IF_FALSE) X(POP_JUMP_IF_TRUE) X(POP_JUMP_IF_NONE) X(POP_JUMP_IF_NOT_NONE) \
    X(JUMP_IF_FALSE_OR_POP) X(JUMP_IF_TRUE_OR_POP) X(GET_ITER) X(FOR_ITER) X(RETURN_VALUE) X(BUILD_TUPLE) \
    X(BUILD_LIST) X(BUILD_MAP) X(BUILD_CONST_KEY_MAP) X(BUILD_STRING) X(FORMAT_VALUE) X(LIST_APPEND) \
    X(LIST_EXTEND) X(LIST_TO_TUPLE) X(MAP_ADD) X(DICT_UPDATE) X(DICT_MERGE) X(UNPACK_SEQUENCE) X(UNPACK_EX) \
    X(MAKE_FUNCTION) X(KW_NAMES) X(CALL) X(CALL_FUNCTION_EX) X(BEFORE_WITH) X(IMPORT_NAME) X(IMPORT_FROM) \
    X(YIELD_VALUE) X(BUILD_SET) X(SET_ADD) X(SET_UPDATE) X(RAISE_VARARGS) X(RERAISE) X(PUSH_EXC_INFO) X(POP_EXCEPT) \
    X(CHECK_EXC_MATCH) X(LOAD_ASSERTION_ERROR) X(WITH_EXCEPT_START)

static const Handler handlers[OP__COUNT] = {
#define X(name) [OP_##name] = h_##name,
    TRACED_OPS(X)
#undef X
};

/* ---- the loop --------------------------------------------------------------------------------------------- */

TxStatus tx_run(Tracer *tr, Tx *tx) {
    Tx *saved = tr->tx;
    tr->tx = tx;
    int64_t steps = 0;
    TxStatus s = TX_OK;
    while (!tx->done) {
        if (tx == tr->root && tr->break_at >= 0 && tx->ip == tr->break_at) {
            char reason[sizeof tr->brk.reason];
            snprintf(reason, sizeof reason, "%s", tr->brk.reason[0] ? tr->brk.reason : "graph break");
            s = trace_break(tr, "%s", reason);
            break;
        }
        if (tx->ip < 0 || tx->ip >= tx->code->ncode) {
            s = trace_break(tr, "ran off the end of the code");
            break;
        }
        if (++steps > MAX_STEPS) {
            s = trace_break(tr, "too many instructions traced (a long loop?)");
            break;
        }
        Instr in = tx->code->code[tx->ip];
        Handler h = handlers[in.op];
        if (!h) {
            s = trace_break(tr, "unsupported opcode %s", op_info[in.op].name);
            break;
        }
        int32_t ip = tx->ip;
        s = h(tr, tx, in.arg);
        if (s == TX_RAISE) {
            /* raised here, or by a call made here: this code's handler, else the caller's */
            if (tr_catch(tr, tx, ip)) {
                s = TX_OK;
                continue;
            }
            tx->ip = ip;
            if (tx == tr->root)
                s = trace_break(tr, "exception %s escapes the region", vt_python_type(tr, tr->raised)->name->data);
            break;
        }
        if (s != TX_OK) {
            tx->ip = ip;
            break;
        }
        if (tx->done || tx->suspended) break;
        tx->ip += code_width((Opcode)in.op);
    }
    tr->tx = saved;
    return s;
}

