/* src/tracer/codegen.c — residual code: the bytecode that replaces a traced frame.  It is built
 * with the VM's own instruction builder and assembler, in seed 004's order:
 *
 *   prologue (cells, free variables, as the original)
 *   graph call      LOAD_GLOBAL __compiled_fn_N; inputs by source; CALL; unpack outputs
 *   temporaries     new objects (object.__new__(cls)) and values used more than once
 *   hooks           tensor.register_hook(fn) on sourced tensors; handle kept where the user kept it
 *   stack + locals  values that must survive, reconstructed before any store runs
 *   mutations       values pushed, then the stores in reverse (STORE_ATTR, old[:] = new,
 *                   d.clear(); d.update(new), STORE_GLOBAL, STORE_DEREF, DELETE_ATTR)
 *   grad mode       torch._C._set_grad_enabled(final) if the region changed it
 *   exit            RETURN_VALUE, or: the breaking instruction run natively and a call of the
 *                   resume function with the stack and live locals.
 *
 * Codegen runs twice: a counting pass finds the graph outputs the residual needs and how often
 * each new object is used; then the graph is finished and the real pass emits.  A value that
 * cannot be rebuilt makes codegen fail with a reason (the frame then runs eagerly). */
#include <stdlib.h>
#include <string.h>

#include "ember/autograd.h"
#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/seq.h"
#include "vm/str.h"

typedef struct Cg {
    Tracer *tr;
    VM *vm;
    Builder *b;
    bool dry;
    int32_t line;
    const char *fail;
    VT **outputs;
    int32_t n_outputs, cap_outputs;
    int32_t *out_slot;
    int32_t ntemps;
    /* for the logs and the report: which phase (and side-effect row) each emitted instruction
     * belongs to, by builder index (NULL: nobody records) */
    RpPhase phase;
    int32_t effect;
    TraceTag *tags;
    int32_t n_tags, cap_tags;
} Cg;

static void tag(Cg *cg, int32_t at) {
    if (!cg->tags || at < 0) return;
    while (at >= cg->cap_tags) {
        cg->cap_tags *= 2;
        cg->tags = realloc(cg->tags, sizeof(TraceTag) * (size_t)cg->cap_tags);
        EM_ASSERT(cg->tags != NULL, "out of memory");
    }
    cg->tags[at] = (TraceTag){(uint8_t)cg->phase, cg->effect};
    if (at >= cg->n_tags) cg->n_tags = at + 1;
}

static void E(Cg *cg, Opcode op, uint32_t arg) {
    if (!cg->dry && !cg->fail) tag(cg, asm_emit(cg->b, op, arg, cg->line));
}

static void phase(Cg *cg, RpPhase p, int32_t effect) {
    cg->phase = p;
    cg->effect = effect;
}

static int32_t temp(Cg *cg, const char *what) {
    if (cg->dry) return 0;
    char name[64];
    snprintf(name, sizeof name, "__%s_%d", what, cg->ntemps++);
    return asm_varname(cg->b, vm_intern_str(cg->vm, name));
}

static uint32_t K(Cg *cg, Value v) { return cg->dry ? 0 : (uint32_t)asm_const(cg->b, v); }
static uint32_t N(Cg *cg, StrObj *s) { return cg->dry ? 0 : (uint32_t)asm_name(cg->b, s); }

/* ---- sources ----------------------------------------------------------------------------------- */

static void load_source(Cg *cg, Source *s) {
    switch (s->kind) {
    case SRC_LOCAL: E(cg, OP_LOAD_FAST, (uint32_t)s->index); return;
    case SRC_GLOBAL: E(cg, OP_LOAD_GLOBAL, N(cg, s->name) << 1); return;
    case SRC_CLOSURE: E(cg, OP_LOAD_DEREF, (uint32_t)(cg->tr->code->cellvars->len + s->index)); return;
    case SRC_ATTR:
        load_source(cg, s->base);
        E(cg, OP_LOAD_ATTR, N(cg, s->name));
        return;
    case SRC_ITEM:
        load_source(cg, s->base);
        E(cg, OP_LOAD_CONST, K(cg, s->key));
        E(cg, OP_BINARY_SUBSCR, 0);
        return;
    case SRC_OBJECT: E(cg, OP_LOAD_CONST, K(cg, s->key)); return;
    }
}

/* ---- reconstruction ---------------------------------------------------------------------------------- */

static void reconstruct(Cg *cg, VT *v);

static int root_cell_index(Cg *cg, VT *cell);

/* a cell made by a function inlined in the region (not one of the traced frame's own): built once
 * into a temporary, since the closures made over it share it by identity */
static bool inlined_new_cell(Cg *cg, VT *v) { return v->kind == VT_CELL && v->mut == MUT_NEW && root_cell_index(cg, v) < 0; }

static bool needs_temp(VT *v) {
    if ((v->kind == VT_OBJECT || v->kind == VT_EXCEPTION) && v->mut == MUT_NEW) return true;
    if (v->kind == VT_ITER) return v->refs >= 2;
    if (v->kind == VT_HANDLE) return true;
    if (v->kind == VT_PARTIAL) return v->mut == MUT_NEW && v->refs >= 2;
    return (v->kind == VT_LIST || v->kind == VT_DICT || v->kind == VT_SET || (v->kind == VT_FUNCTION && v->mut == MUT_NEW)) &&
           v->mut == MUT_NEW && v->refs >= 2;
}

static int output_index(Cg *cg, VT *v) {
    for (int i = 0; i < cg->n_outputs; i++)
        if (cg->outputs[i] == v || cg->outputs[i]->node == v->node) return i;
    return -1;
}

static void add_output(Cg *cg, VT *v) {
    if (output_index(cg, v) >= 0) return;
    if (cg->n_outputs == cg->cap_outputs) {
        cg->cap_outputs = cg->cap_outputs ? cg->cap_outputs * 2 : 8;
        cg->outputs = realloc(cg->outputs, sizeof(VT *) * (size_t)cg->cap_outputs);
    }
    cg->outputs[cg->n_outputs++] = v;
}

static bool all_items_const(Cg *cg, VT *v) {
    for (int i = 0; i < v->n; i++) {
        VT *it = v->items[i];
        if (it->kind == VT_LAZY && !it->a) {
            if (!(it->value.tag != VAL_OBJ || val_is_str(cg->vm, it->value))) return false;
            continue;
        }
        it = vt_force(cg->tr, it);
        if (it->kind != VT_CONST) return false;
    }
    return true;
}

static void emit_sym(Cg *cg, VT *v) {
    VM *vm = cg->vm;
    switch (v->sym) {
    case SYM_LEAF: load_source(cg, v->source); return;
    case SYM_BINOP:
        reconstruct(cg, v->a);
        reconstruct(cg, v->b);
        E(cg, OP_BINARY_OP, (uint32_t)v->index);
        return;
    case SYM_CMP:
        reconstruct(cg, v->a);
        reconstruct(cg, v->b);
        E(cg, OP_COMPARE_OP, (uint32_t)v->index);
        return;
    case SYM_NEG: reconstruct(cg, v->a); E(cg, OP_UNARY_NEGATIVE, 0); return;
    case SYM_POS: reconstruct(cg, v->a); E(cg, OP_UNARY_POSITIVE, 0); return;
    case SYM_NOT: reconstruct(cg, v->a); E(cg, OP_UNARY_NOT, 0); return;
    case SYM_ROUND:
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_CONST, K(cg, dict_get_c(vm, vm->builtins, "round")));
        reconstruct(cg, v->a);
        if (v->b) reconstruct(cg, v->b);
        E(cg, OP_CALL, v->b ? 2 : 1);
        return;
    case SYM_STR: case SYM_INT: case SYM_FLOAT: case SYM_ABS: {
        const char *fn = v->sym == SYM_STR ? "str" : v->sym == SYM_INT ? "int" : v->sym == SYM_FLOAT ? "float" : "abs";
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_CONST, K(cg, dict_get_c(vm, vm->builtins, fn)));
        reconstruct(cg, v->a);
        E(cg, OP_CALL, 1);
        return;
    }
    }
}

/* a tuple tracker standing for a torch.return_types.* result (wrap.c keeps the result in value) */
static bool is_return_type(VM *vm, const VT *v) {
    TorchState *ts = torch_state(vm);
    if (!ts || val_is_null(v->value) || v->value.tag != VAL_OBJ) return false;
    for (int i = 0; i < TORCH_N_RETURN_TYPES; i++)
        if (v->value.as.o->type == ts->t_return_types[i]) return true;
    return false;
}

/* The slot of a cell of the root frame, relative to nlocals, or -1. */
static int root_cell_index(Cg *cg, VT *cell) {
    Tx *root = cg->tr->root;
    int ncell = (int)root->code->cellvars->len + (int)root->code->freevars->len;
    for (int i = 0; i < ncell; i++)
        if (root->locals[root->code->nlocals + i] == cell) return i;
    return -1;
}

/* An iterator the region advanced (a for loop's, at a break inside the loop).  Over a list: a
 * list iterator over that same list, positioned past the items consumed, so what the rest of the
 * loop appends is still iterated.  Over a tuple (constants, ranges, module children, reversed()):
 * a tuple of the items it has left, as dynamo rebuilds them.  Over a dict: the dict's own iterator,
 * positioned.  Lazy zip / enumerate / map / filter: over their own iterators, rebuilt where they
 * stand.  (A generator made in the region cannot be rebuilt: reconstruct fails.) */
#define MAX_ITER_REBUILD 256
static void build_iter(Cg *cg, VT *v) {
    VM *vm = cg->vm;
    switch (v->iter) {
    case ITER_ENUMERATE:
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_CONST, K(cg, val_obj(vm->t_enumerate)));
        reconstruct(cg, v->a);
        E(cg, OP_LOAD_CONST, K(cg, val_int(val_as_intlike(v->b->value) + v->index)));
        E(cg, OP_CALL, 2);
        return;
    case ITER_ZIP: case ITER_MAP: case ITER_FILTER:
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_CONST, K(cg, val_obj(v->iter == ITER_ZIP ? vm->t_zip : v->iter == ITER_MAP ? vm->t_map : vm->t_filter)));
        if (v->iter != ITER_ZIP) reconstruct(cg, v->b);
        if (v->iter == ITER_FILTER) {
            reconstruct(cg, v->a);
            E(cg, OP_CALL, 2);
            return;
        }
        for (int k = 0; k < v->n; k++) reconstruct(cg, v->items[k]);
        E(cg, OP_CALL, (uint32_t)(v->n + (v->iter == ITER_MAP)));
        return;
    case ITER_DICT: {
        /* a dict iterator: the real dict's, positioned; one whose dict changed size must raise
         * at its next step, which a new iterator would not: the frame runs eagerly */
        if (vt_force(cg->tr, v->a)->n != v->size) {
            cg->fail = "an iterator over a dict that changed size";
            return;
        }
        static const char *const views[] = {NULL, "values", "items"};
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_CONST, K(cg, tracer_state(vm)->iter_at));
        reconstruct(cg, v->a);
        if (views[v->view]) {
            E(cg, OP_LOAD_METHOD, N(cg, vm_intern_str(vm, views[v->view])));
            E(cg, OP_CALL, 0);
        }
        E(cg, OP_LOAD_CONST, K(cg, val_int(v->index)));
        E(cg, OP_CALL, 2);
        return;
    }
    case ITER_SET:
        /* the real set's iterator, positioned (its order is the one the region followed) */
        if (v->b->n != v->size || (!val_is_null(v->b->value) && v->b->modified)) {
            cg->fail = "an iterator over a set that changed";
            return;
        }
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_CONST, K(cg, tracer_state(vm)->iter_at));
        reconstruct(cg, v->b);
        E(cg, OP_LOAD_CONST, K(cg, val_int(v->index)));
        E(cg, OP_CALL, 2);
        return;
    case ITER_SEQ: break;
    }
    VT *seq = vt_force(cg->tr, v->a);
    if (seq->kind == VT_LIST) {
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_CONST, K(cg, tracer_state(vm)->iter_at));
        reconstruct(cg, v->a);
        E(cg, OP_LOAD_CONST, K(cg, val_int(v->index)));
        E(cg, OP_CALL, 2);
        return;
    }
    if (seq->kind != VT_TUPLE) {
        cg->fail = "an iterator over an untracked sequence";
        return;
    }
    int first = v->index < seq->n ? v->index : seq->n;
    if (seq->n - first > MAX_ITER_REBUILD) {
        cg->fail = "an iterator with too many items left to rebuild";
        return;
    }
    for (int i = first; i < seq->n; i++) reconstruct(cg, vt_item(cg->tr, seq, i));
    E(cg, OP_BUILD_TUPLE, (uint32_t)(seq->n - first));
    E(cg, OP_GET_ITER, 0);
}

/* functools.partial(func, *args, **keywords): the keywords dict is a copy, so one the residual
 * code also needs by itself (p.keywords escaping apart from p) cannot be rebuilt */
static void build_partial(Cg *cg, VT *v) {
    VT *args = vt_force(cg->tr, v->b), *kw = vt_force(cg->tr, v->kw);
    if (args->kind != VT_TUPLE || kw->kind != VT_DICT || kw->mut != MUT_NEW || (!cg->dry && kw->refs > 0)) {
        cg->fail = "a partial whose keywords dict is used apart from it";
        return;
    }
    for (int i = 0; i < kw->n; i++) {
        VT *k = vt_force(cg->tr, kw->keys[i]);
        if (k->kind != VT_CONST || !val_is_str(cg->vm, k->value)) {
            cg->fail = "a partial with a non-str keyword";
            return;
        }
    }
    if (!cg->dry) E(cg, OP_PUSH_NULL, 0);
    reconstruct(cg, v->cls);
    reconstruct(cg, v->a);
    for (int i = 0; i < args->n; i++) reconstruct(cg, vt_item(cg->tr, args, i));
    for (int i = 0; i < kw->n; i++) reconstruct(cg, vt_item(cg->tr, kw, i));
    if (cg->dry) return;
    if (kw->n) {
        TupleObj *names = tuple_new(cg->vm, kw->n);
        if (!names) {
            vm_clear_exc(cg->vm);
            cg->fail = "out of memory";
            return;
        }
        for (int i = 0; i < kw->n; i++) names->items[i] = vt_force(cg->tr, kw->keys[i])->value;
        trace_keep(cg->tr, val_obj(names));
        E(cg, OP_KW_NAMES, K(cg, val_obj(names)));
    }
    E(cg, OP_CALL, (uint32_t)(1 + args->n + kw->n));
}

static void build_value(Cg *cg, VT *v) {
    VM *vm = cg->vm;
    switch (v->kind) {
    case VT_ITER: build_iter(cg, v); return;
    case VT_CELL: {
        /* a cell of an inlined function: made afresh holding its final contents (stores to it
         * in the region need no replay) */
        VT *contents = se_load_attr(cg->tr, v, vm_intern_str(vm, "cell_contents"));
        if (!contents) contents = v->a;
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_CONST, K(cg, tracer_state(vm)->make_cell));
        if (contents && contents->kind != VT_DELETED) reconstruct(cg, contents);
        E(cg, OP_CALL, contents && contents->kind != VT_DELETED ? 1 : 0);
        return;
    }
    case VT_LIST:
        for (int i = 0; i < v->n; i++) reconstruct(cg, v->items[i]);
        E(cg, OP_BUILD_LIST, (uint32_t)v->n);
        return;
    case VT_DICT:
        for (int i = 0; i < v->n; i++) {
            reconstruct(cg, v->keys[i]);
            reconstruct(cg, v->items[i]);
        }
        E(cg, OP_BUILD_MAP, (uint32_t)v->n);
        return;
    case VT_SET:
        for (int i = 0; i < v->n; i++) reconstruct(cg, v->items[i]);
        E(cg, OP_BUILD_SET, (uint32_t)v->n);
        return;
    case VT_FUNCTION: {
        uint32_t flags = 0;
        if (v->defaults) {
            reconstruct(cg, v->defaults);
            flags |= 1;
        }
        if (v->kwdefaults) {
            reconstruct(cg, v->kwdefaults);
            flags |= 2;
        }
        if (v->closure) {
            VT *cl = vt_force(cg->tr, v->closure);
            for (int i = 0; i < cl->n; i++) {
                VT *cell = vt_force(cg->tr, cl->items[i]);
                int ci = root_cell_index(cg, cell);
                if (ci >= 0) {
                    E(cg, OP_LOAD_CLOSURE, (uint32_t)ci);
                } else if (inlined_new_cell(cg, cell)) {
                    reconstruct(cg, cell);
                } else {
                    cg->fail = "a closure over an existing cell of an inlined function";
                    return;
                }
            }
            E(cg, OP_BUILD_TUPLE, (uint32_t)cl->n);
            flags |= 8;
        }
        E(cg, OP_LOAD_CONST, K(cg, v->code));
        E(cg, OP_MAKE_FUNCTION, flags);
        return;
    }
    case VT_EXCEPTION: {
        /* BaseException.__new__(cls, *args): its other attributes come from the replayed stores */
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_CONST, K(cg, dict_get_c(vm, vm->e_BaseException->dict, "__new__")));
        reconstruct(cg, v->cls);
        VT *args = vt_force(cg->tr, v->a);
        for (int i = 0; i < args->n; i++) reconstruct(cg, args->items[i]);
        E(cg, OP_CALL, (uint32_t)(args->n + 1));
        return;
    }
    case VT_PARTIAL: build_partial(cg, v); return;
    case VT_OBJECT: {
        /* object.__new__(cls): its attributes come from the replayed stores */
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_CONST, K(cg, type_lookup(vm, vm->t_object, vm->special_names[SP_NEW])));
        reconstruct(cg, v->cls);
        E(cg, OP_CALL, 1);
        return;
    }
    default: cg->fail = "cannot rebuild a value"; return;
    }
}

/* Make sure a value that lives in a temporary has been built (post-order, cycles rejected). */
static void ensure_temp(Cg *cg, VT *v) {
    if (v->temp_slot >= 0) return;
    if (v->kind == VT_HANDLE) {
        cg->fail = "a hook handle escaping before it exists";
        return;
    }
    if (v->building) {
        cg->fail = "a cycle among objects made in the region";
        return;
    }
    v->building = true;
    build_value(cg, v);
    v->building = false;
    int32_t slot = temp(cg, "tmp");
    E(cg, OP_STORE_FAST, (uint32_t)slot);
    v->temp_slot = slot;
}

static void reconstruct(Cg *cg, VT *v) {
    VM *vm = cg->vm;
    if (cg->fail || !v) {
        if (!v) cg->fail = "a missing value";
        return;
    }
    if (v->kind == VT_LAZY_LIST) {
        if (v->a) reconstruct(cg, v->a);
        else load_source(cg, v->source);   /* the real list (emit_mutations extends it) */
        return;
    }
    if (v->kind == VT_LAZY) {
        if (v->a) {
            reconstruct(cg, v->a);
            return;
        }
        if (v->source) load_source(cg, v->source);
        else E(cg, OP_LOAD_CONST, K(cg, v->value));
        return;
    }
    if (cg->dry) v->refs++;
    if (!cg->dry && v->temp_slot >= 0) {
        E(cg, OP_LOAD_FAST, (uint32_t)v->temp_slot);
        return;
    }
    switch (v->kind) {
    case VT_NULLV: E(cg, OP_PUSH_NULL, 0); return;
    case VT_CONST: E(cg, OP_LOAD_CONST, K(cg, v->value)); return;
    case VT_TENSOR: {
        if (v->source) {
            load_source(cg, v->source);
            return;
        }
        if (cg->dry) {
            add_output(cg, v);
            return;
        }
        int i = output_index(cg, v);
        if (i < 0) {
            cg->fail = "a tensor that is not a graph output";
            return;
        }
        E(cg, OP_LOAD_FAST, (uint32_t)cg->out_slot[i]);
        return;
    }
    case VT_SYMNUM: emit_sym(cg, v); return;
    case VT_TUPLE:
        if (is_return_type(vm, v)) {
            /* torch.return_types.topk(...) & co. leave the graph as their own type, as in eager */
            E(cg, OP_PUSH_NULL, 0);
            E(cg, OP_LOAD_CONST, K(cg, val_obj(v->value.as.o->type)));
            for (int i = 0; i < v->n; i++) reconstruct(cg, v->items[i]);
            E(cg, OP_BUILD_TUPLE, (uint32_t)v->n);
            E(cg, OP_CALL, 1);
            return;
        }
        if (all_items_const(cg, v)) {
            Value c = vt_as_constant(cg->tr, v);
            if (!val_is_null(c)) {
                E(cg, OP_LOAD_CONST, K(cg, c));
                return;
            }
        }
        if (!val_is_null(v->value) && v->value.as.o->type != vm->t_tuple) {
            /* a torch.return_types tuple keeps its type: T((items...)) (branch opsmath) */
            E(cg, OP_PUSH_NULL, 0);
            E(cg, OP_LOAD_CONST, K(cg, val_obj(v->value.as.o->type)));
            for (int i = 0; i < v->n; i++) reconstruct(cg, v->items[i]);
            E(cg, OP_BUILD_TUPLE, (uint32_t)v->n);
            E(cg, OP_CALL, 1);
            return;
        }
        for (int i = 0; i < v->n; i++) reconstruct(cg, v->items[i]);
        E(cg, OP_BUILD_TUPLE, (uint32_t)v->n);
        return;
    case VT_SLICE:
        for (int i = 0; i < 3; i++) reconstruct(cg, v->items[i]);
        E(cg, OP_BUILD_SLICE, 3);
        return;
    case VT_DICT_VIEW: {
        /* d.keys() on the dict residual code holds: a live view of it, as in eager */
        static const char *const names[] = {"keys", "values", "items"};
        reconstruct(cg, v->a);
        E(cg, OP_LOAD_METHOD, N(cg, vm_intern_str(vm, names[v->index])));
        E(cg, OP_CALL, 0);
        return;
    }
    default: break;
    }
    if (v->source && v->mut != MUT_NEW) {
        load_source(cg, v->source);
        return;
    }
    switch (v->kind) {
    case VT_LIST: case VT_DICT: case VT_SET: case VT_FUNCTION: case VT_OBJECT: case VT_EXCEPTION:
        if (v->mut != MUT_NEW) {
            if (!val_is_null(v->value) && !v->modified && v->kind != VT_OBJECT) {
                E(cg, OP_LOAD_CONST, K(cg, v->value));
                return;
            }
            if (!val_is_null(v->value) && v->kind == VT_OBJECT) {
                E(cg, OP_LOAD_CONST, K(cg, v->value));
                return;
            }
            cg->fail = "an existing container without a source";
            return;
        }
        if (cg->dry) {
            /* count uses of what it holds once */
            if (v->refs == 1) {
                if (v->kind == VT_OBJECT) reconstruct(cg, v->cls);
                else if (v->kind == VT_EXCEPTION) {
                    reconstruct(cg, v->cls);
                    reconstruct(cg, v->a);
                }
                else if (v->kind == VT_FUNCTION) {
                    if (v->defaults) reconstruct(cg, v->defaults);
                    if (v->kwdefaults) reconstruct(cg, v->kwdefaults);
                    if (v->closure) reconstruct(cg, v->closure);
                } else {
                    for (int i = 0; i < v->n; i++) {
                        if (v->keys) reconstruct(cg, v->keys[i]);
                        reconstruct(cg, v->items[i]);
                    }
                }
            }
            return;
        }
        if (needs_temp(v)) {
            ensure_temp(cg, v);
            E(cg, OP_LOAD_FAST, (uint32_t)v->temp_slot);
            return;
        }
        build_value(cg, v);
        return;
    case VT_PARTIAL:
        if (v->mut != MUT_NEW) {
            cg->fail = "an existing partial without a source";
            return;
        }
        if (cg->dry) {
            if (v->refs == 1) build_partial(cg, v);   /* counts what it holds once */
            return;
        }
        if (needs_temp(v)) {
            ensure_temp(cg, v);
            E(cg, OP_LOAD_FAST, (uint32_t)v->temp_slot);
            return;
        }
        build_partial(cg, v);
        return;
    case VT_ITER:
        if (cg->dry) {
            if (v->refs == 1) build_iter(cg, v);   /* counts what it holds once */
            return;
        }
        if (needs_temp(v)) {
            ensure_temp(cg, v);
            E(cg, OP_LOAD_FAST, (uint32_t)v->temp_slot);
            return;
        }
        build_iter(cg, v);
        return;
    case VT_CELL: {
        int ci = root_cell_index(cg, v);
        if (ci >= 0) {
            E(cg, OP_LOAD_CLOSURE, (uint32_t)ci);
            return;
        }
        if (!inlined_new_cell(cg, v)) {
            cg->fail = "an existing cell of an inlined function";
            return;
        }
        if (cg->dry) {   /* (the counting pass only counts what building it needs) */
            if (!v->building) {
                v->building = true;
                build_value(cg, v);
                v->building = false;
            }
            return;
        }
        ensure_temp(cg, v);
        E(cg, OP_LOAD_FAST, (uint32_t)v->temp_slot);
        return;
    }
    case VT_METHOD:
        if (!v->b && v->a && vt_force(cg->tr, v->a)->kind == VT_GRAD_MODE && v->user_name &&
            strcmp(v->user_name->data, "__exit__") == 0) {
            /* the __exit__ of torch.no_grad() & co entered in the region: it restores the mode
             * from before the block (VT_GRAD_MODE.index) */
            E(cg, OP_LOAD_CONST, K(cg, tracer_state(vm)->grad_restorer[vt_force(cg->tr, v->a)->index != 0]));
            return;
        }
        if (v->b && v->b->kind == VT_FUNCTION && !val_is_null(v->b->value) && v->b->mut != MUT_NEW) {
            /* bind the known function: function.__get__(self) (attribute lookup could find an override) */
            E(cg, OP_LOAD_CONST, K(cg, v->b->value));
            E(cg, OP_LOAD_METHOD, N(cg, vm_intern_str(vm, "__get__")));
            reconstruct(cg, v->a);
            E(cg, OP_CALL, 1);
            return;
        }
        if (!v->user_name || !v->a) {
            cg->fail = "a bound method without a name";
            return;
        }
        reconstruct(cg, v->a);
        E(cg, OP_LOAD_ATTR, N(cg, v->user_name));
        return;
    case VT_NATIVE: case VT_TYPE: case VT_MODULE: case VT_OPAQUE: case VT_NN_MODULE:
        if (val_is_null(v->value)) {
            cg->fail = "an object without a value";
            return;
        }
        E(cg, OP_LOAD_CONST, K(cg, v->value));
        return;
    case VT_HANDLE:
        if (cg->dry) return;
        cg->fail = "a hook handle that was never stored";
        return;
    default:
        cg->fail = vt_kind_name(v->kind);
        (void)vm;
        return;
    }
}

/* ---- phases -------------------------------------------------------------------------------------- */

static void emit_prologue(Cg *cg) {
    CodeObj *co = cg->tr->code;
    for (int32_t i = 0; i < co->ncode; i++) {
        Opcode op = (Opcode)co->code[i].op;
        if (op != OP_MAKE_CELL && op != OP_COPY_FREE_VARS && op != OP_NOP) break;
        if (op != OP_NOP) E(cg, op, co->code[i].arg);
    }
}

static void emit_graph_call(Cg *cg, StrObj *fn_name) {
    Tracer *tr = cg->tr;
    if (!fn_name) return;
    E(cg, OP_LOAD_GLOBAL, (N(cg, fn_name) << 1) | 1);
    for (int i = 0; i < tr->n_graph_inputs; i++) {
        VT *in = tr->input_vts[i];
        if (in->kind == VT_TENSOR) {
            if (!in->source) {
                cg->fail = "a graph input the residual code cannot load";
                return;
            }
            load_source(cg, in->source);
        } else {
            reconstruct(cg, in);
        }
    }
    E(cg, OP_CALL, (uint32_t)tr->n_graph_inputs);
    if (cg->n_outputs == 0) {
        E(cg, OP_POP_TOP, 0);
        return;
    }
    E(cg, OP_UNPACK_SEQUENCE, (uint32_t)cg->n_outputs);
    for (int i = 0; i < cg->n_outputs; i++) E(cg, OP_STORE_FAST, (uint32_t)cg->out_slot[i]);
}

static void emit_tempvars(Cg *cg) {
    SideEffects *se = &cg->tr->se;
    for (int i = 0; i < se->n_tracked; i++) {
        VT *v = se->tracked[i];
        if ((v->kind == VT_OBJECT || v->kind == VT_EXCEPTION) && v->mut == MUT_NEW && (cg->dry || v->refs > 0)) {
            if (cg->dry) {
                reconstruct(cg, v->cls);
                if (v->kind == VT_EXCEPTION) reconstruct(cg, v->a);
            }
            else ensure_temp(cg, v);
        }
    }
}

static void emit_hooks(Cg *cg) {
    Tracer *tr = cg->tr;
    SideEffects *se = &tr->se;
    for (int i = 0; i < se->n_hooks; i++) {
        HookReg *h = &se->hooks[i];
        bool escapes = h->handle->refs > 0;
        if (h->removed && !escapes) continue;
        phase(cg, RP_PHASE_EFFECT, se_row_of_hook(se, i));
        reconstruct(cg, h->tensor);
        E(cg, OP_LOAD_METHOD, N(cg, vm_intern_str(cg->vm, "register_hook")));
        reconstruct(cg, h->hook);
        E(cg, OP_CALL, 1);
        if (!escapes) {
            E(cg, OP_POP_TOP, 0);
            continue;
        }
        int32_t slot = -1;
        if (h->handle->user_name) {
            /* the user's own variable, when it is a local of the compiled frame */
            CodeObj *co = tr->code;
            for (int k = 0; k < co->nlocals; k++)
                if (str_eq(AS_STR(co->varnames->items[k]), h->handle->user_name)) slot = k;
        }
        if (slot < 0) slot = temp(cg, "hook_handle");
        E(cg, OP_STORE_FAST, (uint32_t)slot);
        h->handle->temp_slot = slot;
        if (h->removed) {
            E(cg, OP_LOAD_FAST, (uint32_t)slot);
            E(cg, OP_LOAD_METHOD, N(cg, vm_intern_str(cg->vm, "remove")));
            E(cg, OP_CALL, 0);
            E(cg, OP_POP_TOP, 0);
        }
    }
}

/* The instructions that finish one mutation once its operands are pushed; emit_mutations runs
 * them in reverse.  The list grows as mutations are found (containers, stores, the root frame's
 * own cells): no count is known up front. */
typedef struct Suffix {
    Opcode op[4];
    uint32_t arg[4];
    int n;
    RpPhase phase;
    int32_t effect;
} Suffix;

typedef struct Suffixes {
    Suffix *items;
    int n, cap;
} Suffixes;

static void suffix_add(Cg *cg, Suffixes *l, Suffix s) {
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        Suffix *items = trace_arena_alloc(&cg->tr->arena, sizeof(Suffix) * (size_t)cap);
        if (l->n) memcpy(items, l->items, sizeof(Suffix) * (size_t)l->n);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = s;
}

static void emit_mutations(Cg *cg) {
    Tracer *tr = cg->tr;
    VM *vm = cg->vm;
    SideEffects *se = &tr->se;
    Suffixes suf = {0};
    /* containers first, in tracking order, then attribute/global/cell stores in program order */
    for (int i = 0; i < se->n_tracked; i++) {
        VT *v = se->tracked[i];
        if (!v->modified || v->mut != MUT_EXISTING) continue;
        if (!v->source) {
            cg->fail = "a mutated container without a source";
            break;
        }
        if (v->index > 0) cg->line = v->index;
        phase(cg, RP_PHASE_EFFECT, se_row_of_tracked(se, i));
        if (v->kind == VT_LAZY_LIST) {
            /* only appended to: old.extend([appended...]) — no need to know old's contents */
            load_source(cg, v->source);
            E(cg, OP_LOAD_METHOD, N(cg, vm_intern_str(vm, "extend")));
            for (int k = 0; k < v->n; k++) reconstruct(cg, v->items[k]);
            E(cg, OP_BUILD_LIST, (uint32_t)v->n);
            suffix_add(cg, &suf, (Suffix){{OP_CALL, OP_POP_TOP}, {1, 0}, 2, cg->phase, cg->effect});
        } else if (v->kind == VT_LIST) {
            /* old[:] = new */
            build_value(cg, v);
            load_source(cg, v->source);
            E(cg, OP_LOAD_CONST, K(cg, val_none()));
            E(cg, OP_LOAD_CONST, K(cg, val_none()));
            E(cg, OP_BUILD_SLICE, 2);
            suffix_add(cg, &suf, (Suffix){{OP_STORE_SUBSCR}, {0}, 1, cg->phase, cg->effect});
        } else if (v->kind == VT_DICT || v->kind == VT_SET) {
            /* old.clear(); old.update(new) */
            load_source(cg, v->source);
            E(cg, OP_LOAD_METHOD, N(cg, vm_intern_str(vm, "update")));
            build_value(cg, v);
            load_source(cg, v->source);
            E(cg, OP_LOAD_METHOD, N(cg, vm_intern_str(vm, "clear")));
            suffix_add(cg, &suf, (Suffix){{OP_CALL, OP_POP_TOP, OP_CALL, OP_POP_TOP}, {0, 0, 1, 0}, 4, cg->phase, cg->effect});
        }
    }
    /* pushed last-to-first so that the reversed suffixes run the stores in program order
     * (a new object's __dict__ keeps the order its attributes were set in) */
    for (int i = se->n_stores - 1; i >= 0 && !cg->fail; i--) {
        AttrStore *s = &se->stores[i];
        cg->line = s->line ? s->line : cg->line;
        phase(cg, RP_PHASE_EFFECT, se_row_of_store(se, i));
        if (s->obj == tr->globals_vt) {
            if (s->value->kind == VT_DELETED) {
                suffix_add(cg, &suf, (Suffix){{OP_DELETE_GLOBAL}, {N(cg, s->name)}, 1, cg->phase, cg->effect});
                continue;
            }
            reconstruct(cg, s->value);
            suffix_add(cg, &suf, (Suffix){{OP_STORE_GLOBAL}, {N(cg, s->name)}, 1, cg->phase, cg->effect});
            continue;
        }
        if (s->obj->kind == VT_CELL) {
            int ci = root_cell_index(cg, s->obj);
            if (ci < 0 && inlined_new_cell(cg, s->obj)) continue;   /* built with its final contents */
            Source *cs = s->obj->source;
            if (ci < 0 && cs && cs->kind == SRC_ATTR && cs->base && strcmp(cs->name->data, "cell_contents") == 0) {
                /* a cell of an enclosing frame, reached as fn.__closure__[i]: cell.cell_contents = v */
                reconstruct(cg, s->value);
                load_source(cg, cs->base);
                suffix_add(cg, &suf, (Suffix){{OP_STORE_ATTR}, {N(cg, cs->name)}, 1, cg->phase, cg->effect});
                continue;
            }
            if (ci < 0) {
                cg->fail = "a store to a cell of an inlined function";
                break;
            }
            reconstruct(cg, s->value);
            suffix_add(cg, &suf, (Suffix){{OP_STORE_DEREF}, {(uint32_t)ci}, 1, cg->phase, cg->effect});
            continue;
        }
        if (s->value->kind == VT_DELETED) {
            /* deleting an attribute the object had before the region; one set and deleted inside needs nothing */
            if (s->obj->mut == MUT_NEW) continue;
            Value had = val_is_null(s->obj->value) ? val_null() : trace_static_getattr(vm, s->obj->value, s->name);
            if (val_is_null(had)) continue;
            reconstruct(cg, s->obj);
            suffix_add(cg, &suf, (Suffix){{OP_DELETE_ATTR}, {N(cg, s->name)}, 1, cg->phase, cg->effect});
            continue;
        }
        reconstruct(cg, s->value);
        reconstruct(cg, s->obj);
        suffix_add(cg, &suf, (Suffix){{OP_STORE_ATTR}, {N(cg, s->name)}, 1, cg->phase, cg->effect});
    }
    /* the root frame's own new cells (captured locals assigned in the region) */
    Tx *root = tr->root;
    int ncells = (int)root->code->cellvars->len;
    phase(cg, RP_PHASE_STATE, -1);
    for (int i = 0; i < ncells && !cg->fail; i++) {
        VT *cell = root->locals[root->code->nlocals + i];
        if (!cell || cell->mut != MUT_NEW || !cell->a) continue;
        reconstruct(cg, cell->a);
        suffix_add(cg, &suf, (Suffix){{OP_STORE_DEREF}, {(uint32_t)i}, 1, RP_PHASE_STATE, -1});
    }
    for (int i = suf.n - 1; i >= 0; i--) {
        phase(cg, suf.items[i].phase, suf.items[i].effect);
        for (int k = 0; k < suf.items[i].n; k++) E(cg, suf.items[i].op[k], suf.items[i].arg[k]);
    }
    phase(cg, RP_PHASE_NONE, -1);
}

static void emit_grad_mode(Cg *cg) {
    Tracer *tr = cg->tr;
    bool now = ag_is_grad_enabled();
    if (now == tr->grad_mode_at_entry) return;
    phase(cg, RP_PHASE_GRAD_MODE, -1);
    VM *vm = cg->vm;
    Value c = dict_get_c(vm, vm->modules, "torch._C");
    Value f = c.tag == VAL_OBJ ? dict_get_c(vm, ((ModuleObj *)c.as.o)->dict, "_set_grad_enabled") : val_null();
    if (val_is_null(f)) {
        cg->fail = "torch._C._set_grad_enabled is missing";
        return;
    }
    E(cg, OP_PUSH_NULL, 0);
    E(cg, OP_LOAD_CONST, K(cg, f));
    E(cg, OP_LOAD_CONST, K(cg, val_bool(now)));
    E(cg, OP_CALL, 1);
    E(cg, OP_POP_TOP, 0);
}

/* ---- the breaking instruction ------------------------------------------------------------------- */

/* What an instruction pops and pushes, and which pushed slot (if any) is NULL. */
static void instr_io(Opcode op, uint32_t arg, int *pops, int *pushes, int *null_at) {
    const OpInfo *oi = &op_info[op];
    *null_at = -1;
    *pops = oi->pops;
    *pushes = oi->pushes;
    switch (op) {
    case OP_CALL: *pops = (int)arg + 2; *pushes = 1; break;
    case OP_CALL_FUNCTION_EX: *pops = 3 + (int)(arg & 1); *pushes = 1; break;
    case OP_BUILD_TUPLE: case OP_BUILD_LIST: case OP_BUILD_SET: case OP_BUILD_STRING: *pops = (int)arg; *pushes = 1; break;
    case OP_BUILD_MAP: *pops = 2 * (int)arg; *pushes = 1; break;
    case OP_BUILD_CONST_KEY_MAP: *pops = (int)arg + 1; *pushes = 1; break;
    case OP_BUILD_SLICE: *pops = (int)arg; *pushes = 1; break;
    case OP_UNPACK_SEQUENCE: *pops = 1; *pushes = (int)arg; break;
    case OP_UNPACK_EX: *pops = 1; *pushes = (int)(arg & 0xFF) + (int)(arg >> 8) + 1; break;
    case OP_FORMAT_VALUE: *pops = 1 + ((arg & 4) ? 1 : 0); *pushes = 1; break;
    case OP_MAKE_FUNCTION: *pops = 1 + __builtin_popcount(arg & 15); *pushes = 1; break;
    case OP_RAISE_VARARGS: *pops = (int)arg; *pushes = 0; break;
    case OP_LOAD_GLOBAL: *pops = 0; *pushes = 1 + (int)(arg & 1); if (arg & 1) *null_at = 0; break;
    case OP_LOAD_METHOD: *pops = 1; *pushes = 2; *null_at = 0; break;   /* run as PUSH_NULL; SWAP 2; LOAD_ATTR */
    default: break;
    }
}

/* Emit instruction `in` of the original code, its operands re-indexed into the residual's tables. */
static void emit_original(Cg *cg, Instr in, Label jump_target) {
    CodeObj *co = cg->tr->code;
    Opcode op = (Opcode)in.op;
    switch (op_info[op].arg_kind) {
    case ARGK_CONST: E(cg, op, K(cg, co->consts->items[in.arg])); return;
    case ARGK_NAME:
        if (op == OP_LOAD_GLOBAL) {
            E(cg, op, (N(cg, AS_STR(co->names->items[in.arg >> 1])) << 1) | (in.arg & 1));
            return;
        }
        if (op == OP_LOAD_METHOD) {
            E(cg, OP_PUSH_NULL, 0);
            E(cg, OP_SWAP, 2);
            E(cg, OP_LOAD_ATTR, N(cg, AS_STR(co->names->items[in.arg])));
            return;
        }
        E(cg, op, N(cg, AS_STR(co->names->items[in.arg])));
        return;
    case ARGK_JUMP:
        if (!cg->dry && !cg->fail) tag(cg, asm_emit_jump(cg->b, op, jump_target, cg->line));
        return;
    case ARGK_LOCAL2:
        E(cg, op == OP_STORE_FAST_LOAD_FAST ? OP_STORE_FAST : OP_LOAD_FAST, in.arg & 0xFFFF);
        E(cg, OP_LOAD_FAST, in.arg >> 16);
        return;
    case ARGK_LOCAL_CONST:
        E(cg, OP_LOAD_FAST, in.arg & 0xFFFF);
        E(cg, OP_LOAD_CONST, K(cg, co->consts->items[in.arg >> 16]));
        return;
    default: E(cg, op, in.arg); return;
    }
}

/* Store a stack of `depth` values (nullmask bit i: slot i is NULL) into temporaries, top down. */
static void stack_to_temps(Cg *cg, int depth, uint64_t nullmask, int32_t *slots) {
    for (int i = depth - 1; i >= 0; i--) {
        if (nullmask >> i & 1) {
            E(cg, OP_POP_TOP, 0);
            slots[i] = -1;
        } else {
            slots[i] = temp(cg, "stack");
            E(cg, OP_STORE_FAST, (uint32_t)slots[i]);
        }
    }
}

static void call_resume(Cg *cg, int32_t target, int depth, uint64_t nullmask, int32_t *slots, bool *ok) {
    Tracer *tr = cg->tr;
    CodeObj *co = tr->code;
    /* live locals: bound at the break and possibly read after the target */
    int32_t *live = calloc((size_t)co->nlocals + 1, sizeof(int32_t));
    bool *maybe_read = calloc((size_t)co->nlocals + 1, sizeof(bool));
    tracer_live_locals(co, target, maybe_read);
    int n_live = 0;
    for (int i = 0; i < co->nlocals; i++) {
        if (!maybe_read[i]) continue;
        VT *v = tr->root->locals[i];
        if (!v && !val_is_null(tr->frame->localsplus[i])) v = (VT *)1;   /* untouched argument */
        if (v && (v == (VT *)1 || v->kind != VT_DELETED)) live[n_live++] = i;
    }
    free(maybe_read);
    phase(cg, RP_PHASE_RESUME, -1);
    Value fn;
    StrObj *name = NULL;
    bool needs_closure = co->cellvars->len + co->freevars->len > 0;
    if (cg->dry) {
        fn = val_none();
    } else {
        fn = tracer_resume_function(tr, target, depth, nullmask, live, n_live, &name);
        if (val_is_null(fn)) {
            cg->fail = "could not build the resume function";
            free(live);
            *ok = false;
            return;
        }
    }
    E(cg, OP_PUSH_NULL, 0);
    if (needs_closure) {
        int ncell = (int)co->cellvars->len + (int)co->freevars->len;
        for (int i = 0; i < ncell; i++) E(cg, OP_LOAD_CLOSURE, (uint32_t)i);
        E(cg, OP_BUILD_TUPLE, (uint32_t)ncell);
        E(cg, OP_LOAD_CONST, K(cg, cg->dry ? val_none() : val_obj(((FunctionObj *)fn.as.o)->code)));
        E(cg, OP_MAKE_FUNCTION, 8);
    } else {
        E(cg, OP_LOAD_GLOBAL, N(cg, name ? name : vm_intern_str(cg->vm, "__resume")) << 1);
    }
    /* the live locals first (so a resumed method keeps self in slot 0 for super()), then the stack */
    int nargs = 0;
    for (int i = 0; i < n_live; i++) E(cg, OP_LOAD_FAST, (uint32_t)live[i]);
    for (int i = 0; i < depth; i++)
        if (!(nullmask >> i & 1)) {
            E(cg, OP_LOAD_FAST, (uint32_t)slots[i]);
            nargs++;
        }
    E(cg, OP_CALL, (uint32_t)(nargs + n_live));
    E(cg, OP_RETURN_VALUE, 0);
    free(live);
}

/* The handler of [start, end): call the enclosing blocks' saved __exit__s (innermost first),
 * then re-raise — laid out like the compiler's finally cleanup (PUSH_EXC_INFO ... RERAISE, and
 * a cleanup range that restores the handled exception). */
static void emit_with_exits_handler(Cg *cg, Label start, Label end, const int32_t *saved) {
    Tracer *tr = cg->tr;
    Label handler = asm_new_label(cg->b), body_end = asm_new_label(cg->b), cleanup = asm_new_label(cg->b);
    asm_bind(cg->b, handler);
    E(cg, OP_PUSH_EXC_INFO, 0);
    for (int k = 0; k < tr->n_with_exits; k++) {
        E(cg, OP_PUSH_NULL, 0);
        E(cg, OP_LOAD_FAST, (uint32_t)saved[tr->with_exit_slot[k]]);
        E(cg, OP_CALL, 0);
        E(cg, OP_POP_TOP, 0);
    }
    E(cg, OP_RERAISE, 0);
    asm_bind(cg->b, body_end);
    asm_bind(cg->b, cleanup);
    E(cg, OP_SWAP, 2);
    E(cg, OP_POP_EXCEPT, 0);
    E(cg, OP_RERAISE, 0);
    asm_add_exc_range(cg->b, start, end, handler, 0);
    asm_add_exc_range(cg->b, handler, body_end, cleanup, 1);
}

/* The stack at a break reaches the resume function as arguments, its NULL slots as a 64-bit
 * mask (ResumeFn.stack_shape): a deeper stack, before or after the breaking instruction, makes
 * codegen fail and the frame run eagerly. */
#define MAX_BREAK_STACK 62

/* The break: stack saved, mutations applied, then the instruction runs natively and the rest
 * of the function continues in a resume function. */
static void emit_break_exit(Cg *cg) {
    Tracer *tr = cg->tr;
    Tx *root = tr->root;
    CodeObj *co = tr->code;
    Instr in = co->code[root->ip];
    Opcode op = (Opcode)in.op;
    int depth = root->sp;
    if (depth > MAX_BREAK_STACK) {
        cg->fail = "too deep a stack at the break";
        return;
    }
    uint64_t nullmask = 0;
    for (int i = 0; i < depth; i++)
        if (vt_force(tr, root->stack[i])->kind == VT_NULLV) nullmask |= 1ull << i;
    int32_t *saved = trace_arena_alloc(&tr->arena, sizeof(int32_t) * (size_t)(depth + 1));
    phase(cg, RP_PHASE_STATE, -1);
    /* 1. the stack and changed locals, rebuilt before any store runs */
    for (int i = 0; i < depth; i++) {
        if (nullmask >> i & 1) continue;
        reconstruct(cg, root->stack[i]);
        saved[i] = temp(cg, "stack");
        E(cg, OP_STORE_FAST, (uint32_t)saved[i]);
    }
    int32_t *changed = trace_arena_alloc(&tr->arena, sizeof(int32_t) * (size_t)(co->nlocals + 1));
    int nchanged = 0;
    /* only what the breaking instruction or the code after it may read (a dead local may hold
     * what cannot be rebuilt, such as a generator made in the region) */
    bool *live = trace_arena_alloc(&tr->arena, (size_t)co->nlocals + 1);
    tracer_live_locals(co, root->ip, live);
    for (int i = 0; i < co->nlocals; i++) {
        VT *v = root->locals[i];
        if (!v || v->kind == VT_DELETED || !live[i]) continue;
        VT *f = vt_force(tr, v);
        if (f->source && f->source->kind == SRC_LOCAL && f->source->index == i) continue;   /* the frame's own value */
        reconstruct(cg, v);
        changed[nchanged++] = i;
    }
    for (int k = nchanged - 1; k >= 0; k--) E(cg, OP_STORE_FAST, (uint32_t)changed[k]);
    /* deleted locals */
    for (int i = 0; i < co->nlocals; i++)
        if (root->locals[i] && root->locals[i]->kind == VT_DELETED && !val_is_null(tr->frame->localsplus[i]))
            E(cg, OP_DELETE_FAST, (uint32_t)i);
    /* 2. side effects */
    emit_mutations(cg);
    emit_grad_mode(cg);
    if (cg->fail) return;
    bool ok = true;
    uint8_t fl = op_info[op].flags;
    if ((fl & F_JUMP) && (fl & F_COND)) {
        /* a data-dependent branch: the condition decides which resume function continues */
        bool pop_always = op == OP_POP_JUMP_IF_FALSE || op == OP_POP_JUMP_IF_TRUE || op == OP_POP_JUMP_IF_NONE ||
                          op == OP_POP_JUMP_IF_NOT_NONE;
        if (op == OP_FOR_ITER || op == OP_SEND) {
            cg->fail = "a break at a loop or send";
            return;
        }
        if (tr->n_with_exits) {
            cg->fail = "a data-dependent branch inside a with block";
            return;
        }
        Label jump = cg->dry ? 0 : asm_new_label(cg->b);
        phase(cg, RP_PHASE_BREAK, -1);
        for (int i = 0; i < depth; i++) {
            if (nullmask >> i & 1) E(cg, OP_PUSH_NULL, 0);
            else E(cg, OP_LOAD_FAST, (uint32_t)saved[i]);
        }
        emit_original(cg, in, jump);
        /* fall through: the condition is gone */
        int32_t *slots = trace_arena_alloc(&tr->arena, sizeof(int32_t) * (size_t)(depth + 1));
        stack_to_temps(cg, depth - 1, nullmask, slots);
        call_resume(cg, root->ip + code_width(op), depth - 1, nullmask, slots, &ok);
        if (!cg->dry && !cg->fail) asm_bind(cg->b, jump);
        int jdepth = pop_always ? depth - 1 : depth;
        stack_to_temps(cg, jdepth, nullmask, slots);
        call_resume(cg, (int32_t)in.arg, jdepth, nullmask, slots, &ok);
        return;
    }
    if (fl & F_JUMP) {
        cg->fail = "a break at an unconditional jump";
        return;
    }
    /* 3. the stack back, the instruction, the rest in a resume function */
    phase(cg, RP_PHASE_BREAK, -1);
    for (int i = 0; i < depth; i++) {
        if (nullmask >> i & 1) E(cg, OP_PUSH_NULL, 0);
        else E(cg, OP_LOAD_FAST, (uint32_t)saved[i]);
    }
    /* inside grad-mode with blocks: if the instruction raises, their __exit__s run (restoring
     * the mode) before the exception leaves, as the blocks' own handlers would */
    bool protect = tr->n_with_exits > 0 && !cg->dry;
    Label p_start = 0, p_end = 0;
    if (protect) {
        p_start = asm_new_label(cg->b);
        p_end = asm_new_label(cg->b);
        asm_bind(cg->b, p_start);
    }
    if (op == OP_CALL && root->kwnames) E(cg, OP_KW_NAMES, K(cg, val_obj(root->kwnames)));
    emit_original(cg, in, 0);
    if (protect) asm_bind(cg->b, p_end);
    if (fl & F_TERM) {
        if (protect) emit_with_exits_handler(cg, p_start, p_end, saved);
        return;
    }
    int pops, pushes, null_at;
    instr_io(op, in.arg, &pops, &pushes, &null_at);
    if (pops < 0 || pushes < 0) {
        cg->fail = "a break at an instruction of unknown stack effect";
        return;
    }
    int after = depth - pops + pushes;
    if (after > MAX_BREAK_STACK) {
        cg->fail = "too deep a stack after the breaking instruction";
        return;
    }
    uint64_t mask_after = nullmask & ((depth - pops) >= 64 ? ~0ull : ((1ull << (depth - pops)) - 1));
    if (null_at >= 0) mask_after |= 1ull << (depth - pops + null_at);
    int32_t *slots = trace_arena_alloc(&tr->arena, sizeof(int32_t) * (size_t)(after + 1));
    stack_to_temps(cg, after, mask_after, slots);
    call_resume(cg, root->ip + code_width(op), after, mask_after, slots, &ok);
    if (protect) emit_with_exits_handler(cg, p_start, p_end, saved);
}

/* ---- driver ------------------------------------------------------------------------------------- */

static void run_phases(Cg *cg, StrObj *fn_name, bool has_break) {
    Tracer *tr = cg->tr;
    cg->line = tr->code->firstlineno;
    int first_line = code_line(tr->code, 0);
    if (first_line > 0) cg->line = first_line;
    phase(cg, RP_PHASE_PROLOGUE, -1);
    emit_prologue(cg);
    phase(cg, RP_PHASE_GRAPH_CALL, -1);
    emit_graph_call(cg, fn_name);
    phase(cg, RP_PHASE_TEMPS, -1);
    emit_tempvars(cg);
    emit_hooks(cg);
    if (has_break) {
        cg->line = code_line(tr->code, tr->root->ip);
        emit_break_exit(cg);
        return;
    }
    cg->line = code_line(tr->code, tr->root->ip);
    phase(cg, RP_PHASE_STATE, -1);
    reconstruct(cg, tr->root->return_value);
    emit_mutations(cg);
    emit_grad_mode(cg);
    phase(cg, RP_PHASE_RETURN, -1);
    E(cg, OP_RETURN_VALUE, 0);
}

CodeObj *trace_codegen_residual(Tracer *tr, Value *compiled_fn_out, StrObj **compiled_name_out) {
    VM *vm = tr->vm;
    CodeObj *co = tr->code;
    bool has_break = tr->have_break;
    *compiled_fn_out = val_null();
    *compiled_name_out = NULL;
    se_prune_dead(tr);

    /* counting pass */
    Cg dry = {.tr = tr, .vm = vm, .dry = true};
    run_phases(&dry, vm_intern_str(vm, "__dry"), has_break);
    if (dry.fail) {
        snprintf(tr->errbuf, sizeof tr->errbuf, "%s", dry.fail);
        free(dry.outputs);
        return NULL;
    }
    /* the graph: outputs are what residual code needs */
    bool want_graph = graph_count_ops(tr->graph) > 0 || dry.n_outputs > 0;
    StrObj *fn_name = NULL;
    if (want_graph) {
        char name[64];
        snprintf(name, sizeof name, "__compiled_fn_%d", tracer_state(vm)->next_graph_id++);
        Value cg_obj = trace_compile_graph(tr, dry.outputs, dry.n_outputs, name);
        if (val_is_null(cg_obj)) {
            free(dry.outputs);
            return NULL;
        }
        Value fn = trace_graph_fn_new(vm, cg_obj, name);
        if (val_is_null(fn)) {
            free(dry.outputs);
            return NULL;
        }
        trace_keep(tr, fn);
        fn_name = vm_intern_str(vm, name);
        *compiled_fn_out = fn;
        *compiled_name_out = fn_name;
    }

    /* emitting pass */
    Builder b;
    asm_builder_init(vm, &b, co->name->data, co->qualname->data, co->filename->data, co->firstlineno);
    b.argcount = co->argcount;
    b.posonlyargcount = co->posonlyargcount;
    b.kwonlyargcount = co->kwonlyargcount;
    b.flags = (co->flags & ~(uint32_t)CO_HAS_DOC) | CO_RESIDUAL;
    for (int64_t i = 0; i < co->varnames->len; i++) asm_varname(&b, AS_STR(co->varnames->items[i]));
    for (int64_t i = 0; i < co->cellvars->len; i++) asm_cellvar(&b, AS_STR(co->cellvars->items[i]));
    for (int64_t i = 0; i < co->freevars->len; i++) asm_freevar(&b, AS_STR(co->freevars->items[i]));
    Cg cg = {.tr = tr, .vm = vm, .b = &b, .outputs = dry.outputs, .n_outputs = dry.n_outputs,
             .cap_outputs = dry.cap_outputs};
    cg.out_slot = calloc((size_t)cg.n_outputs + 1, sizeof(int32_t));
    if (tr->want_tags) {
        cg.cap_tags = 64;
        cg.tags = malloc(sizeof(TraceTag) * (size_t)cg.cap_tags);
        EM_ASSERT(cg.tags != NULL, "out of memory");
    }
    for (int i = 0; i < cg.n_outputs; i++) cg.out_slot[i] = temp(&cg, "graph_out");
    run_phases(&cg, fn_name, has_break);
    CodeObj *res = NULL;
    if (cg.fail) snprintf(tr->errbuf, sizeof tr->errbuf, "%s", cg.fail);
    else res = asm_assemble(&b);
    if (res && cg.tags) {
        /* by final instruction index: the assembler drops pseudo-ops and unreachable code */
        free(tr->res_tags);
        tr->res_tags = calloc((size_t)res->ncode + 1, sizeof(TraceTag));
        EM_ASSERT(tr->res_tags != NULL, "out of memory");
        tr->n_res_tags = res->ncode;
        for (int32_t i = 0; i < cg.n_tags && i < b.n; i++) {
            int32_t to = asm_final_index(&b, i);
            if (to >= 0 && to < res->ncode) tr->res_tags[to] = cg.tags[i];
        }
    }
    free(cg.tags);
    asm_builder_fini(&b);
    free(cg.out_slot);
    free(cg.outputs);
    return res;
}
