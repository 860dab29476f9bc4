/* ca_build.c — compiled autograd, step 3: the captured graph of a collected backward (ca.h).
 *
 * Gradients are graph values.  Per step, in the engine's order: arrivals summed into the node's
 * input slots (`add`, first arrival first, as the input buffer sums), the step's actions — a
 * live step's hooks, retains_grad and AccumulateGrad as script calls, captures as graph outputs —
 * and the apply.  An op node's apply is its autograd rule recorded by rt_diff when it accepts the one-op
 * forward graph rebuilt from the node (its forward inputs' metadata from the node's stored
 * metas, its saved tensors or its edges; its saved tensors as the saved set, so the rule reads
 * exactly what eager saved, or cheaply recomputes from it); its backward ops are copied in with
 * metadata re-inferred from the real gradients.  Anything else is an opaque call of the node. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/runtime/ca.h"

typedef struct Build {
    const CaTrace *tr;
    Graph *g;
    GraphNode **ph;            /* per collected input, created on first use */
    int32_t *input_map;
    int32_t n_ph;
    GraphNode ***outs;         /* per step, per next edge: the routed output (NULL: none) */
    GraphNode **captured;      /* per autograd.grad result */
    int cur_step;
    int n_symbolic, n_opaque;
    char why[256];             /* why the last symbolic attempt failed */
    char *notes;               /* per op node run opaquely: why (for the logs) */
    size_t notes_len;
} Build;

static void note(Build *b, const AgNode *fn, const char *why) {
    char line[400];
    int n = snprintf(line, sizeof line, "NodeCall %d %s runs its own backward: %s\n", b->cur_step, ag_node_name(fn), why);
    if (n < 0) return;
    if (n >= (int)sizeof line) n = (int)sizeof line - 1;
    b->notes = realloc(b->notes, b->notes_len + (size_t)n + 1);
    EM_ASSERT(b->notes, "out of memory building a compiled autograd graph");
    memcpy(b->notes + b->notes_len, line, (size_t)n + 1);
    b->notes_len += (size_t)n;
}

static int fail(Build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(Build *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->why, sizeof b->why, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- opaque descriptors ------------------------------------------------------------------------------ */

static void caop_release(void *p) {
    CaOp *o = p;
    free(o->a_def);
    free(o->b_def);
    free(o->out_def);
    free(o->out_meta);
    free(o);
}

const CaOp *ca_op_of(const GraphOpaque *o) { return o && o->release == caop_release ? (const CaOp *)o->ptr : NULL; }

static uint8_t *copy_def(const uint8_t *d, int n) {
    uint8_t *c = calloc((size_t)(n ? n : 1), 1);
    EM_ASSERT(c, "out of memory building a compiled autograd graph");
    if (d && n) memcpy(c, d, (size_t)n);
    return c;
}

static void contiguous_meta(TensorMeta *m, TensorDtype dt, int ndim, const int64_t *shape) {
    memset(m, 0, sizeof *m);
    m->dtype = dt;
    m->ndim = ndim;
    if (ndim) memcpy(m->shape, shape, sizeof(int64_t) * (size_t)ndim);
    tensor__compute_contiguous_strides(ndim, m->shape, m->strides);
}

static void meta_of_shape(TensorMeta *m, const AgShape *s) { contiguous_meta(m, (TensorDtype)s->dtype, s->ndim, s->shape); }

/* ---- emitting ------------------------------------------------------------------------------------------- */

static void set_loc(Build *b, GraphNode *n) {
    if (b->cur_step < 0) return;
    const AgNode *fn = b->tr->steps[b->cur_step].node;
    char code[64];
    snprintf(code, sizeof code, "NodeCall %d", b->cur_step);
    graph_node_set_loc(b->g, n, "<compiled_autograd>", b->cur_step, ag_node_name(fn), code);
}

static GraphNode *op_node(Build *b, TensorOp op, GraphNode *const *in, int n, const TensorOpArgs *a) {
    GraphNode *r = graph_call_tensor_op(b->g, op, in, n, a, tensor_op_name(op), NULL, -1, NULL, NULL, 0);
    set_loc(b, r);
    return r;
}

static GraphNode *zeros_node(Build *b, const TensorMeta *m) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = m->shape;
    a.n_ints = m->ndim;
    a.dtype = m->dtype;
    return op_node(b, TENSOR_OP_ZEROS, NULL, 0, &a);
}

/* the engine's validate_outputs for a root gradient (ag__sum_to, then the dtype cast) */
static GraphNode *validate(Build *b, GraphNode *v, const AgShape *want) {
    const TensorMeta *m = &v->meta;
    if (m->ndim != want->ndim || memcmp(m->shape, want->shape, sizeof(int64_t) * (size_t)m->ndim) != 0) {
        int64_t dims[TENSOR_MAX_DIMS];
        int n = 0, lead = m->ndim - want->ndim;
        for (int i = 0; i < m->ndim; i++)
            if (i < lead || (want->shape[i - lead] == 1 && m->shape[i] != 1)) dims[n++] = i;
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        if (n) {
            a.ints = dims;
            a.n_ints = n;
            a.keepdim = true;
            v = op_node(b, TENSOR_OP_SUM_DIM, &v, 1, &a);
        }
        if (v->meta.ndim != want->ndim) {
            a = TENSOR_OP_ARGS_INIT;
            a.ints = want->shape;
            a.n_ints = want->ndim;
            v = op_node(b, TENSOR_OP_VIEW, &v, 1, &a);
        }
    }
    if (v->meta.dtype != (TensorDtype)want->dtype) {
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.dtype = (TensorDtype)want->dtype;
        v = op_node(b, TENSOR_OP_TO_DTYPE, &v, 1, &a);
    }
    return v;
}

static GraphNode *input_node(Build *b, int i) {
    if (b->ph[i]) return b->ph[i];
    char name[160];
    const CaTrace *tr = b->tr;
    if (i < tr->sched.n_roots) {
        snprintf(name, sizeof name, "grad_%d", i);
    } else {
        /* saved_<NodeCall>_<slot> */
        snprintf(name, sizeof name, "saved");
        for (int s = 0; s < tr->n_steps; s++) {
            const CaStep *st = &tr->steps[s];
            for (uint32_t k = 0; st->saved_input && k < st->node->n_saved; k++)
                if (st->saved_input[k] == i) snprintf(name, sizeof name, "saved_%d_%u", s, k);
        }
    }
    GraphNode *p = graph_placeholder(b->g, name, name);
    p->is_tensor = true;
    tensor_meta_of(tr->inputs[i], &p->meta);
    p->meta.offset = 0;
    b->input_map[i] = b->n_ph++;
    b->ph[i] = p;
    return p;
}

/* A script call of item `item`: inputs in[n_in]; results res_meta[n_res] into res (n_res == 0:
 * one throwaway value, the call only has effects).  Call view: target(opaque, *view_args,
 * hook_type=...). */
static GraphNode *emit_call(Build *b, CaOp *op, const char *target, const char *name, const char *hook_type,
                            const GraphArg *view, int n_view, GraphNode *const *in, int n_in, const TensorMeta *res_meta,
                            int n_res, GraphNode **res) {
    char repr[64];
    snprintf(repr, sizeof repr, "%s[%d]", op->kind == CA_ACT_APPLY ? "nodes" : "hooks", op->item);
    GraphOpaque *o = graph_opaque_new(op, caop_release, repr);
    GraphArg args[72];
    int na = 0;
    args[na++] = graph_arg_opaque(o);
    for (int i = 0; i < n_view && na < 72; i++) args[na++] = view[i];
    const char *kwn[1] = {"hook_type"};
    GraphArg kw[1] = {graph_arg_str(hook_type)};
    GraphNode *n = graph_node_new(b->g, GRAPH_CALL_FUNCTION, name, target, args, na, hook_type ? kwn : NULL,
                                  hook_type ? kw : NULL, hook_type ? 1 : 0);
    graph_opaque_decref(o);   /* the args copy holds it */
    set_loc(b, n);
    n->exec.kind = GRAPH_EXEC_SCRIPT;
    n->exec.n_inputs = n_in;
    n->exec.inputs = calloc((size_t)(n_in ? n_in : 1), sizeof(GraphNode *));
    EM_ASSERT(n->exec.inputs, "out of memory building a compiled autograd graph");
    for (int i = 0; i < n_in; i++) n->exec.inputs[i] = in[i];
    n->exec.opaque = o;
    graph_opaque_incref(o);
    n->exec.n_outputs = n_res > 1 ? n_res : 1;
    if (n_res <= 1) {
        n->is_tensor = true;
        if (n_res == 1) {
            n->meta = res_meta[0];
            res[0] = n;
        } else {
            contiguous_meta(&n->meta, TENSOR_FLOAT32, 0, NULL);
        }
        return n;
    }
    for (int k = 0; k < n_res; k++) {
        res[k] = graph_getitem(b->g, n, k);
        res[k]->is_tensor = true;
        res[k]->meta = res_meta[k];
        set_loc(b, res[k]);
    }
    return n;
}

static CaOp *new_op(const CaAction *a) {
    CaOp *op = calloc(1, sizeof *op);
    EM_ASSERT(op, "out of memory building a compiled autograd graph");
    op->kind = a->kind;
    op->apply = a->kind == CA_ACT_APPLY ? a->how : 0;
    op->item = a->item;
    return op;
}

/* the defined entries of v[n] as call inputs, and their tuple for the call view */
static int gather(GraphNode *const *v, int n, GraphNode **in, GraphArg *view) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        view[i] = v[i] ? graph_arg_node(v[i]) : graph_arg_none();
        if (v[i]) in[k++] = v[i];
    }
    return k;
}

/* A hook or node call that maps the gradients v[n] (defined ones in, same ones out): node
 * pre-hooks, and an opaque apply's outputs when `outs` is given. */
static void emit_array_call(Build *b, CaOp *op, const char *target, const char *name, const char *hook_type,
                            GraphNode **v, int n, GraphNode *const *extra, int n_extra, const uint8_t *out_def,
                            const TensorMeta *out_meta, int n_outs, GraphNode **outs) {
    GraphNode *in[128];
    GraphArg view_a[64], view_b[64], view[2];
    int n_in = gather(v, n, in, view_a);
    op->n_a = n;
    op->a_def = calloc((size_t)(n ? n : 1), 1);
    EM_ASSERT(op->a_def, "out of memory building a compiled autograd graph");
    for (int i = 0; i < n; i++) op->a_def[i] = v[i] != NULL;
    int n_view = 0;
    view[n_view++] = graph_arg_seq(GARG_TUPLE, view_a, n);
    if (extra) {
        int k = gather(extra, n_extra, in + n_in, view_b);
        n_in += k;
        op->n_b = n_extra;
        op->b_def = calloc((size_t)(n_extra ? n_extra : 1), 1);
        EM_ASSERT(op->b_def, "out of memory building a compiled autograd graph");
        for (int i = 0; i < n_extra; i++) op->b_def[i] = extra[i] != NULL;
        view[n_view++] = graph_arg_seq(GARG_TUPLE, view_b, n_extra);
    }
    op->n_out = n_outs;
    op->out_def = copy_def(out_def, n_outs);
    op->out_meta = calloc((size_t)(n_outs ? n_outs : 1), sizeof *op->out_meta);
    EM_ASSERT(op->out_meta, "out of memory building a compiled autograd graph");
    TensorMeta rm[64];
    int n_res = 0;
    contiguous_meta(&rm[0], TENSOR_FLOAT32, 0, NULL);
    for (int i = 0; i < n_outs; i++) {
        op->out_meta[i] = out_meta[i];
        if (out_def[i]) rm[n_res++] = out_meta[i];
    }
    GraphNode *res[64];
    emit_call(b, op, target, name, hook_type, view, n_view, in, n_in, rm, n_res, res);
    int k = 0;
    for (int i = 0; i < n_outs; i++) outs[i] = out_def[i] ? res[k++] : NULL;
}

/* ---- the symbolic apply -------------------------------------------------------------------------------- */

/* a node of the per-node backward graph, copied into the captured graph (metadata re-inferred) */
static GraphNode *copy_bwd_node(Build *b, const GraphNode *n, RtPtrMap *map, GraphNode **mapped) {
    GraphNode *in[64];
    int k = n->exec.n_inputs;
    if (k > 64) return NULL;
    for (int i = 0; i < k; i++) {
        in[i] = NULL;
        if (!n->exec.inputs[i]) continue;
        int32_t p = rt_map_get(map, n->exec.inputs[i]);
        if (p < 0 || !mapped[p]) return NULL;
        in[i] = mapped[p];
    }
    switch (n->exec.kind) {
    case GRAPH_EXEC_TENSOR_OP: {
        GraphNode *c = graph_call_tensor_op(b->g, n->exec.op, in, k, &n->exec.args, n->target, NULL, -1, NULL, NULL, 0);
        set_loc(b, c);
        return c->is_tensor || c->exec.n_outputs > 1 ? c : NULL;
    }
    case GRAPH_EXEC_GETITEM: {
        GraphNode *c = graph_getitem(b->g, in[0], n->exec.index);
        set_loc(b, c);
        return c->is_tensor ? c : NULL;
    }
    case GRAPH_EXEC_CUSTOM_OP: {
        /* runtime-internal ops: their metadata is the rule's */
        if (!rt_internal_of(n->exec.opaque)) return NULL;
        GraphArg args[64];
        for (int i = 0; i < k; i++) args[i] = in[i] ? graph_arg_node(in[i]) : graph_arg_none();
        GraphNode *c = graph_node_new(b->g, GRAPH_CALL_FUNCTION, n->name, n->target, args, k, NULL, NULL, 0);
        set_loc(b, c);
        c->exec.kind = GRAPH_EXEC_CUSTOM_OP;
        c->exec.n_inputs = k;
        c->exec.inputs = calloc((size_t)(k ? k : 1), sizeof(GraphNode *));
        EM_ASSERT(c->exec.inputs, "out of memory building a compiled autograd graph");
        memcpy(c->exec.inputs, in, sizeof(GraphNode *) * (size_t)k);
        c->exec.n_outputs = n->exec.n_outputs;
        c->exec.opaque = n->exec.opaque;
        graph_opaque_incref(c->exec.opaque);
        c->is_tensor = n->is_tensor;
        c->meta = n->meta;
        return c;
    }
    default: return NULL;
    }
}

static bool same_shape(const TensorMeta *m, const AgShape *s) {
    return m->dtype == (TensorDtype)s->dtype && m->ndim == s->ndim &&
           memcmp(m->shape, s->shape, sizeof(int64_t) * (size_t)m->ndim) == 0;
}

/* forward input i's metadata: stored in the node, or a saved tensor's, or its edge's (shape and
 * dtype).  0 known, 1 absent (optional input not given), -1 unknown. */
static int forward_input_meta(const Build *b, const CaStep *st, int i, TensorMeta *m) {
    const AgNode *fn = st->node;
    if (fn->absent & (1u << i)) return 1;
    if (fn->in_meta) {
        if (fn->in_meta[i].dtype == TENSOR_DTYPE_DEFAULT) return 1;
        *m = fn->in_meta[i];
        return 0;
    }
    for (uint32_t k = 0; k < fn->n_saved; k++)
        if (st->saved_input[k] >= 0 && (ag_saved_src_inputs(fn, (int)k) & (1u << i))) {
            tensor_meta_of(b->tr->inputs[st->saved_input[k]], m);
            return 0;
        }
    int e = ag__input_edge(fn, i);
    if (e >= 0 && fn->next[e].fn && fn->next[e].input_nr < fn->next[e].fn->n_out) {
        meta_of_shape(m, &fn->next[e].fn->out_meta[fn->next[e].input_nr]);
        return 0;
    }
    return -1;
}

/* the saved slot holding forward input i (out < 0) or output `out` */
static int saved_slot_for(const CaStep *st, int i, int out) {
    const AgNode *fn = st->node;
    for (uint32_t k = 0; k < fn->n_saved; k++) {
        if (st->saved_input[k] < 0) continue;
        if (out < 0 ? (ag_saved_src_inputs(fn, (int)k) & (1u << i)) != 0 : ag_saved_src_output(fn, (int)k) == out) return (int)k;
    }
    return -1;
}

/* The one-op forward graph an op node differentiates (rebuilt from the node) and what rt_diff
 * needs to know about it. */
typedef struct NodeFwd {
    Graph *F;
    GraphNode *x[32];          /* per forward input: its placeholder, NULL when absent */
    GraphNode *outs[64];
    int input_of_ph[32], n_ph;
    bool rg[32], needed[32], tangent[64];
    GraphNode *saved[96];      /* exactly the values eager saved */
    int n_saved;
    GraphNode *mask;           /* training dropout: the mask output (saved slot 0) */
} NodeFwd;

/* dropout(x) in training as the runtime differentiates it: native_dropout(x) -> (out, mask) */
static GraphNode *dropout_with_mask(const CaStep *st, NodeFwd *f) {
    const AgNode *fn = st->node;
    GraphNode *dm = graph_call_tensor_op(f->F, TENSOR_OP_NATIVE_DROPOUT, &f->x[0], 1, &fn->args, NULL, NULL, -1, NULL, NULL, 0);
    GraphNode *out = graph_getitem(f->F, dm, 0);
    f->mask = graph_getitem(f->F, dm, 1);
    return out;
}

static int build_forward(Build *b, const CaStep *st, GraphNode *const *G, NodeFwd *f) {
    const AgNode *fn = st->node;
    int n_in = (int)fn->n_in, n_out = (int)fn->n_out;
    for (int i = 0; i < n_in; i++) {
        TensorMeta m;
        int k = forward_input_meta(b, st, i, &m);
        f->x[i] = NULL;
        if (k < 0) return fail(b, "the metadata of forward input %d is unknown", i);
        if (k > 0) continue;
        m.offset = 0;
        GraphNode *x = f->x[i] = graph_placeholder(f->F, "x", "x");
        x->is_tensor = true;
        x->meta = m;
        int e = ag__input_edge(fn, i);
        f->rg[f->n_ph] = e >= 0 && fn->next[e].fn;
        f->needed[f->n_ph] = f->rg[f->n_ph] && st->out_def[e];
        f->input_of_ph[f->n_ph++] = i;
    }
    bool dropout = fn->n_saved && ca_dropout_mask_slot(fn, 0) && st->saved_input[0] >= 0 && f->x[0];
    GraphNode *y = dropout ? dropout_with_mask(st, f)
                           : graph_call_tensor_op(f->F, (TensorOp)fn->op, f->x, n_in, &fn->args, NULL, NULL, -1, NULL, NULL, 0);
    if (y->exec.n_outputs > 1) {
        if (y->exec.n_outputs != n_out) return fail(b, "the forward op has %d outputs here", y->exec.n_outputs);
        for (int k = 0; k < n_out; k++) f->outs[k] = graph_getitem(f->F, y, k);
    } else {
        if (n_out != 1 || !y->is_tensor) return fail(b, "the forward op cannot be rebuilt (%d outputs)", n_out);
        f->outs[0] = y;
    }
    GraphArg oargs[64];
    for (int k = 0; k < n_out; k++) {
        if (!f->outs[k]->is_tensor || !same_shape(&f->outs[k]->meta, &fn->out_meta[k]))
            return fail(b, "the rebuilt forward's output %d has another shape", k);
        oargs[k] = graph_arg_node(f->outs[k]);
        f->tangent[k] = G[k] != NULL;
    }
    graph_output(f->F, oargs, n_out);
    for (int p = 0; p < f->n_ph; p++)
        if (saved_slot_for(st, f->input_of_ph[p], -1) >= 0) f->saved[f->n_saved++] = f->x[f->input_of_ph[p]];
    for (int k = 0; k < n_out; k++)
        if (saved_slot_for(st, -1, k) >= 0) f->saved[f->n_saved++] = f->outs[k];
    if (f->mask) f->saved[f->n_saved++] = f->mask;
    return 0;
}

/* the saved slot holding forward value fv of the rebuilt graph */
static int slot_of_value(const CaStep *st, const NodeFwd *f, const GraphNode *fv) {
    if (fv == f->mask) return 0;
    for (uint32_t i = 0; i < st->node->n_in; i++)
        if (f->x[i] == fv) return saved_slot_for(st, (int)i, -1);
    for (uint32_t k = 0; k < st->node->n_out; k++)
        if (f->outs[k] == fv) return saved_slot_for(st, -1, (int)k);
    return -1;
}

/* Copies rt_diff's backward graph in: its placeholders are the node's gradients (tangents)
 * and saved values (graph inputs); its outputs, one per forward input, go to O by edge. */
static int inline_backward(Build *b, const CaStep *st, const NodeFwd *f, const RtDiffResult *res, GraphNode *const *G,
                           GraphNode **O) {
    const AgNode *fn = st->node;
    int n_out = (int)fn->n_out, rc = -1;
    const Graph *B = res->bwd;
    GraphNode **mapped = calloc((size_t)(B->n_nodes + 1), sizeof *mapped);
    EM_ASSERT(mapped, "out of memory building a compiled autograd graph");
    RtPtrMap map = {0};
    rt_map_positions(&map, B);
    int ph = 0, pos = 0;
    GraphNode *out_node = NULL;
    for (GraphNode *n = B->first; n; n = n->next, pos++) {
        if (n->kind == GRAPH_PLACEHOLDER) {
            int slot = ph < n_out ? -1 : slot_of_value(st, f, res->saved[ph - n_out]);
            if (ph >= n_out && slot < 0) {
                fail(b, "a saved value has no saved slot");
                goto done;
            }
            mapped[pos] = ph < n_out ? G[ph] : input_node(b, st->saved_input[slot]);
            ph++;
        } else if (n->kind == GRAPH_OUTPUT) {
            out_node = n;
        } else if (!(mapped[pos] = copy_bwd_node(b, n, &map, mapped))) {
            fail(b, "the backward op %s does not fit the real gradients", n->name);
            goto done;
        }
    }
    if (!out_node || out_node->n_args != 1 || out_node->args[0].as.seq.n != f->n_ph) {
        fail(b, "the backward graph's outputs are malformed");
        goto done;
    }
    for (int p = 0; p < f->n_ph; p++) {
        const GraphArg *a = &out_node->args[0].as.seq.items[p];
        int e = ag__input_edge(fn, f->input_of_ph[p]);
        if (a->kind != GARG_NODE || e < 0) continue;
        int32_t q = rt_map_get(&map, a->as.node);
        GraphNode *v = q >= 0 ? mapped[q] : NULL;
        const AgNode *nx = fn->next[e].fn;
        if (!v || !v->is_tensor || (nx && !same_shape(&v->meta, &nx->out_meta[fn->next[e].input_nr]))) {
            fail(b, "the gradient of input %d has another shape", f->input_of_ph[p]);
            goto done;
        }
        O[e] = v;
    }
    rc = 0;
done:
    free(mapped);
    rt_map_fini(&map);
    return rc;
}

/* 0 with O filled, or -1: the rule cannot stand in for this node (whatever was emitted is dead
 * code, removed later). */
static int emit_symbolic(Build *b, const CaStep *st, GraphNode **G, GraphNode **O) {
    NodeFwd f;
    memset(&f, 0, sizeof f);
    f.F = graph_new("ca_node");
    RtDiffResult res;
    memset(&res, 0, sizeof res);
    int rc = build_forward(b, st, G, &f);
    if (rc == 0) {
        RtDiffSpec spec = {.input_rg = f.rg, .input_needed = f.needed, .outs = f.outs, .n_outs = (int)st->node->n_out,
                           .tangent_defined = f.tangent, .saved = f.saved, .n_saved = f.n_saved, .recompute = true,
                           .recompute_norm = true};
        if ((rc = rt_diff(f.F, &spec, &res)) < 0) {
            fail(b, "%s", res.fail ? res.fail : tensor_error_message());
            tensor_error_clear();
        }
    }
    if (rc == 0) rc = inline_backward(b, st, &f, &res, G, O);
    rt_diff_result_fini(&res);
    graph_free(f.F);
    return rc;
}

/* ---- steps ---------------------------------------------------------------------------------------------- */

/* the node's apply; on a live step it runs the node's post-hooks itself (with_post_hooks) */
static void emit_opaque_apply(Build *b, const CaStep *st, const CaAction *a, bool with_post_hooks, GraphNode **G,
                              GraphNode **O) {
    const AgNode *fn = st->node;
    TensorMeta om[64];
    for (uint32_t e = 0; e < fn->n_next && e < 64; e++) {
        const AgEdge *ed = &fn->next[e];
        if (ed->fn && ed->input_nr < ed->fn->n_out) meta_of_shape(&om[e], &ed->fn->out_meta[ed->input_nr]);
        else contiguous_meta(&om[e], TENSOR_FLOAT32, 0, NULL);
    }
    CaOp *op = new_op(a);
    op->with_post_hooks = with_post_hooks;
    emit_array_call(b, op, "call_backward", "call_backward", with_post_hooks ? "with_post_hooks" : NULL, G, (int)fn->n_out,
                    NULL, 0, st->out_def, om, (int)fn->n_next, O);
    b->n_opaque++;
}

/* why collect did not even try the symbolic rule of an op node */
static const char *opaque_reason(const AgNode *fn) {
    if (fn->op >= TENSOR_OP_COUNT) return "unknown op";
    if (tensor_op_flags((TensorOp)fn->op) & TENSOR_OPF_INPLACE) return "an in-place op";
    const char *why = rt_op_underivable_reason((TensorOp)fn->op);
    if (why) return why;
    for (uint32_t k = 0; k < fn->n_saved; k++)
        if (fn->saved[k].defined && fn->saved[k].hooks) return "its saved tensors were packed by saved-tensor hooks";
    return "too many inputs or outputs";
}

/* the node's input slots: arrivals summed in the engine's order (first arrival first) */
static void sum_arrivals(Build *b, const CaStep *st, GraphNode **G) {
    const CaTrace *tr = b->tr;
    const AgNode *fn = st->node;
    for (int i = 0; i < st->n_arrivals; i++) {
        const AgArrival *ar = &tr->sched.arrivals[st->first_arrival + i];
        GraphNode *v = ar->step < 0 ? input_node(b, (int)ar->edge) : b->outs[ar->step][ar->edge];
        if (!v || ar->slot >= fn->n_out) continue;
        if (ar->step < 0 && tr->sched.validate_roots) v = validate(b, v, &fn->out_meta[ar->slot]);
        G[ar->slot] = G[ar->slot] ? op_node(b, TENSOR_OP_ADD, (GraphNode *[]){G[ar->slot], v}, 2, NULL) : v;
    }
    for (uint32_t i = 0; i < fn->n_out; i++) EM_ASSERT((G[i] != NULL) == (st->in_def[i] != 0), "compiled autograd: definedness");
}

/* A live step's hooks, read when they run (ca.h): tensor pre-hooks and retains_grad, and node
 * pre-hooks (v = the node's gradients), or post-hooks (v = grad_inputs, extra = gradients): the
 * defined entries of v in and out. */
static void emit_hooks(Build *b, const CaAction *a, GraphNode **v, int n, GraphNode **extra, int n_extra) {
    TensorMeta m[64];
    uint8_t def[64];
    for (int k = 0; k < n; k++) {
        def[k] = v[k] != NULL;
        if (v[k]) contiguous_meta(&m[k], v[k]->meta.dtype, v[k]->meta.ndim, v[k]->meta.shape);
    }
    static const char *const hook_type[] = {
        [CA_ACT_TENSOR_HOOKS] = "tensor_pre_hook", [CA_ACT_PRE_HOOKS] = "pre_hook", [CA_ACT_POST_HOOKS] = "post_hook"};
    CaOp *op = new_op(a);
    const CaStep *st = &b->tr->steps[b->cur_step];
    /* the first live step releases the saved variables of the steps before it, as the engine
     * has by then (ca_run.c) */
    op->release_static = a->kind != CA_ACT_POST_HOOKS && b->cur_step == b->tr->first_live;
    /* a symbolic apply reads saved tensors unpacked at capture: after the pre-hooks, where
     * eager unpacks them, the run checks they were not modified or freed since */
    for (int i = 0; a->kind == CA_ACT_PRE_HOOKS && i < st->n_act; i++) {
        const CaAction *ap = &b->tr->acts[st->first_act + i];
        if (ap->kind == CA_ACT_APPLY && ap->how == CA_APPLY_SYMBOLIC) op->check_saved = true;
    }
    emit_array_call(b, op, "call_hook", "call_hook", hook_type[a->kind], v, n, extra, n_extra, def, m, n, v);
}

static void emit_accumulate(Build *b, const CaAction *a, GraphNode *g) {
    CaOp *op = new_op(a);
    uint8_t def = 1;
    op->n_a = 1;
    op->a_def = copy_def(&def, 1);
    op->out_def = copy_def(NULL, 0);
    GraphArg view = graph_arg_node(g);
    emit_call(b, op, "accumulate_grad_", "accumulate_grad_", NULL, &view, 1, &g, 1, NULL, 0, NULL);
}

/* The apply at action i: O receives exactly the declared outputs.  Returns how many following
 * actions (the post-hooks, which an opaque apply runs itself) it took over. */
static int emit_apply(Build *b, const CaStep *st, int i, GraphNode **G, GraphNode **O) {
    const CaTrace *tr = b->tr;
    const CaAction *a = &tr->acts[st->first_act + i];
    const AgNode *fn = st->node;
    int consumed = 0;
    switch ((CaApply)a->how) {
    case CA_APPLY_NONE: break;
    case CA_APPLY_IDENTITY:
        for (uint32_t e = 0; e < fn->n_next && e < fn->n_out; e++) O[e] = st->out_def[e] ? G[e] : NULL;
        break;
    case CA_APPLY_ACCUMULATE: emit_accumulate(b, a, G[0]); break;
    case CA_APPLY_SYMBOLIC:
        b->why[0] = 0;
        if (emit_symbolic(b, st, G, O) == 0) {
            b->n_symbolic++;
            break;
        }
        note(b, fn, b->why);
        memset(O, 0, sizeof(GraphNode *) * fn->n_next);
        __attribute__((fallthrough));   /* the node's own apply */
    case CA_APPLY_OPAQUE:
        if (a->how == CA_APPLY_OPAQUE && fn->kind == AG_KIND_OP) note(b, fn, opaque_reason(fn));
        if (i + 1 < st->n_act && tr->acts[st->first_act + i + 1].kind == CA_ACT_POST_HOOKS) consumed = 1;
        emit_opaque_apply(b, st, a, consumed, G, O);
        break;
    }
    for (uint32_t e = 0; e < fn->n_next; e++) {
        if (!st->out_def[e]) {
            O[e] = NULL;
        } else if (!O[e]) {   /* declared but not computed: a rule that returned None */
            const AgEdge *ed = &fn->next[e];
            TensorMeta m;
            if (ed->fn && ed->input_nr < ed->fn->n_out) meta_of_shape(&m, &ed->fn->out_meta[ed->input_nr]);
            else contiguous_meta(&m, TENSOR_FLOAT32, 0, NULL);
            O[e] = zeros_node(b, &m);
        }
    }
    return consumed;
}

static int build_step(Build *b, int s) {
    const CaTrace *tr = b->tr;
    const CaStep *st = &tr->steps[s];
    AgNode *fn = st->node;
    int n_out = (int)fn->n_out, n_next = (int)fn->n_next;
    if (n_out > 64 || n_next > 64) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "compiled autograd: %s has too many gradients", ag_node_name(fn));
        return -1;
    }
    b->cur_step = s;
    GraphNode *G[64] = {0}, *O[64] = {0};
    sum_arrivals(b, st, G);
    for (int i = 0; i < st->n_act; i++) {
        const CaAction *a = &tr->acts[st->first_act + i];
        switch ((CaActKind)a->kind) {
        case CA_ACT_TENSOR_HOOKS: case CA_ACT_PRE_HOOKS: emit_hooks(b, a, G, n_out, NULL, 0); break;
        case CA_ACT_CAPTURE:
            if (a->slot < n_out && a->out >= 0 && a->out < tr->n_captures) b->captured[a->out] = G[a->slot];
            break;
        case CA_ACT_APPLY: i += emit_apply(b, st, i, G, O); break;
        case CA_ACT_POST_HOOKS: emit_hooks(b, a, O, n_next, G, n_out); break;
        }
    }
    b->outs[s] = calloc((size_t)(n_next ? n_next : 1), sizeof(GraphNode *));
    EM_ASSERT(b->outs[s], "out of memory building a compiled autograd graph");
    for (int e = 0; e < n_next; e++) b->outs[s][e] = fn->next[e].fn ? O[e] : NULL;
    return 0;
}

/* AccumulateGrad may take over its gradient when nothing else in the graph reads it, as eager
 * steals a gradient only it holds */
static void mark_steals(Graph *g) {
    graph_compute_users(g);
    for (GraphNode *n = g->first; n; n = n->next) {
        const CaOp *op = n->exec.kind == GRAPH_EXEC_SCRIPT ? ca_op_of(n->exec.opaque) : NULL;
        if (!op || op->kind != CA_ACT_APPLY || op->apply != CA_APPLY_ACCUMULATE) continue;
        GraphNode *in = n->exec.inputs[0];
        ((CaOp *)op)->may_steal = in->kind != GRAPH_PLACEHOLDER && in->n_users == 1;
    }
}

int ca_build(const CaTrace *tr, int id, CaBuilt *out) {
    memset(out, 0, sizeof *out);
    char name[64];
    snprintf(name, sizeof name, "CompiledAutograd%d", id);
    Build b = {.tr = tr, .g = graph_new(name), .cur_step = -1};
    b.ph = calloc((size_t)(tr->n_inputs ? tr->n_inputs : 1), sizeof *b.ph);
    b.input_map = malloc(sizeof *b.input_map * (size_t)(tr->n_inputs ? tr->n_inputs : 1));
    b.outs = calloc((size_t)(tr->n_steps ? tr->n_steps : 1), sizeof *b.outs);
    b.captured = calloc((size_t)(tr->n_captures ? tr->n_captures : 1), sizeof *b.captured);
    EM_ASSERT(b.ph && b.input_map && b.outs && b.captured, "out of memory building a compiled autograd graph");
    for (int i = 0; i < tr->n_inputs; i++) b.input_map[i] = -1;
    for (int i = 0; i < tr->sched.n_roots; i++) input_node(&b, i);
    int rc = 0;
    for (int s = 0; s < tr->n_steps && rc == 0; s++) rc = build_step(&b, s);
    b.cur_step = -1;
    if (rc == 0) {
        GraphArg *items = calloc((size_t)(tr->n_captures ? tr->n_captures : 1), sizeof *items);
        out->out_capture = malloc(sizeof(int32_t) * (size_t)(tr->n_captures ? tr->n_captures : 1));
        EM_ASSERT(items && out->out_capture, "out of memory building a compiled autograd graph");
        for (int i = 0; i < tr->n_captures; i++) {
            items[i] = b.captured[i] ? graph_arg_node(b.captured[i]) : graph_arg_none();
            out->out_capture[i] = i;
        }
        graph_output(b.g, items, tr->n_captures);
        free(items);
        out->n_outputs = tr->n_captures;
        graph_eliminate_dead_code(b.g);
        mark_steals(b.g);
        char err[256];
        if (graph_verify(b.g, err, sizeof err) < 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "compiled autograd: malformed graph: %s", err);
            rc = -1;
        }
    }
    for (int s = 0; s < tr->n_steps; s++) free(b.outs[s]);
    free(b.outs);
    free(b.captured);
    free(b.ph);
    if (rc < 0) {
        graph_free(b.g);
        free(b.notes);
        free(b.input_map);
        free(out->out_capture);
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->graph = b.g;
    out->input_map = b.input_map;
    out->n_placeholders = b.n_ph;
    out->n_symbolic = b.n_symbolic;
    out->n_opaque = b.n_opaque;
    out->notes = b.notes;
    return 0;
}

void ca_built_fini(CaBuilt *b) {
    graph_free(b->graph);
    free(b->notes);
    free(b->input_map);
    free(b->out_capture);
    memset(b, 0, sizeof *b);
}
