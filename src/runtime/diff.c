/* diff.c — compile-time reverse-mode differentiation of a primitive forward graph into a
 * backward graph (placeholders: one tangent per compiled output, then the saved forward
 * values; output: one gradient per forward placeholder).
 *
 *   1. requires_grad flows forward as in the eager recorder (float outputs of differentiable
 *      ops with a differentiable input requiring grad); `toward` marks nodes leading to an
 *      input whose gradient is wanted, `from` those reached by a defined tangent — a node's
 *      rule runs iff both hold, which is when the eager engine would execute its node (the
 *      exec info of backward(inputs=) / autograd.grad);
 *   2. a dry run of the rules records which forward values the backward reads; those that are
 *      cheap (views, fusable pointwise ops, layer_norm) and whose inputs are read anyway (or
 *      are placeholders) are recomputed in the backward, the rest are saved;
 *   3. the real run walks the forward nodes in reverse creation order — the order the eager
 *      engine's ready queue pops them — calling hooks on a value when its gradient is complete
 *      (static HOOK nodes and marker hook points, in registration order), then the rule, then
 *      accumulating input gradients (sum-to-shape and dtype cast as validate_outputs, then
 *      old + new as the input buffer does).
 *
 * A rule is src/autograd's own: no derivative is written here.  It runs over fake tensors (the
 * forward values and gradients it reads, with their metadata and no storage) through ag_derive
 * with the tensor library in meta mode, and every op it runs reaches record() through the op
 * observer, which adds that op to the backward graph — AOTAutograd's way of tracing the
 * autograd engine.  A fake of a forward value resolves, when an op reads it, to the value as
 * the backward sees it (saved, or recomputed: avail), so the dry run learns what to save from
 * the same run.  A rule that reads tensor data (marked DATA in ops.def) or computes with a
 * tensor the observer never saw makes the differentiation fail: the plan runs eagerly. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "src/autograd/capture.h"
#include "src/runtime/rt.h"

typedef struct HookRef {
    const GraphNode *node;   /* HOOK node, or NULL for a marker point */
    int32_t marker, index;
} HookRef;

typedef struct RtD RtD;

/* a fake tensor of the rule being run: a forward value (fwd >= 0; -2: an output the graph never
 * uses) or a node of the backward graph */
typedef struct Fake {
    Tensor *t;               /* owned */
    int32_t fwd;
    GraphNode *node;
} Fake;

struct RtD {
    const Graph *f;
    Graph *b;
    int n;
    const GraphNode **fn;
    RtPtrMap pos;
    int *canon;              /* canonical value position; -1: not a value */
    int **getitems;          /* multi-output op: canonical getitem position per output */
    int *n_getitems;
    int *placeholder;        /* placeholder ordinal, -1 otherwise */
    bool *rg, *from, *toward;
    HookRef **hooks;
    int *n_hooks;
    bool *need;              /* read by the backward (dry run) */
    bool *saved;             /* saved by the forward */
    GraphNode **avail;       /* forward value in the backward graph */
    GraphNode **grad;        /* accumulated gradient per canonical value */
    GraphNode ***contrib;    /* split_inputs: a placeholder's gradient contributions, in order */
    int *n_contrib;
    int *side;               /* gelu: position of its side value (erf(x*k)), -1 */
    RtPtrMap back;           /* backward node -> the forward value it is (for CSE) */
    /* the rule being run */
    int cur;
    int n_out;
    int out_pos[64];
    GraphNode *gi[64];
    bool dry;
    bool recompute;
    GraphNode *err_node;
    char *fail;
    const RtDiffSpec *spec;
    Fake *fakes;             /* of the rule being run */
    int n_fakes, cap_fakes;
};

/* ---- failure ------------------------------------------------------------------------------------ */

static int rd_fail(RtD *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rd_fail(RtD *d, const char *fmt, ...) {
    if (!d->fail) {
        char buf[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        d->fail = strdup(buf);
    }
    return -1;
}

static GraphNode *err_node(RtD *d) {
    if (!d->err_node) {
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.dtype = TENSOR_FLOAT32;
        d->err_node = graph_call_tensor_op(d->b, TENSOR_OP_ZEROS, NULL, 0, &a, "zeros", NULL, -1, NULL, NULL, 0);
    }
    return d->err_node;
}

/* ---- emitting ------------------------------------------------------------------------------------ */

static bool scalar_eq(TensorScalar a, TensorScalar b) { return a.kind == b.kind && a.f == b.f && a.i == b.i; }

static bool ints_eq(const int64_t *a, int na, const int64_t *b, int nb) {
    return na == nb && (na == 0 || memcmp(a, b, sizeof(int64_t) * (size_t)na) == 0);
}

static bool args_equal(const TensorOpArgs *a, const TensorOpArgs *b) {
    return scalar_eq(a->scalar, b->scalar) && scalar_eq(a->scalar2, b->scalar2) && scalar_eq(a->alpha, b->alpha) &&
           scalar_eq(a->beta, b->beta) && ints_eq(a->ints, a->n_ints, b->ints, b->n_ints) &&
           ints_eq(a->ints2, a->n_ints2, b->ints2, b->n_ints2) && a->dim == b->dim && a->dim2 == b->dim2 &&
           a->start == b->start && a->end == b->end && a->step == b->step && a->ignore_index == b->ignore_index &&
           a->padding_idx == b->padding_idx && a->eps == b->eps && a->p == b->p && a->correction == b->correction &&
           a->dtype == b->dtype && a->reduction == b->reduction && a->keepdim == b->keepdim && a->has_dim == b->has_dim &&
           a->has_min == b->has_min && a->has_max == b->has_max && a->approximate == b->approximate &&
           a->accumulate == b->accumulate && a->train == b->train;
}

static GraphNode *avail(RtD *d, int p);
static int pos_of(RtD *d, const GraphNode *n);
static int outputs_of(RtD *d, int p, int *out);

/* A backward op that computes what a forward node computed — same op, arguments and inputs —
 * reuses the forward value (saved or cheaply recomputed) instead: e.g. gelu's derivative needs
 * erf(x * 0.7071), which the forward already computed. */
static GraphNode *cse(RtD *d, TensorOp op, GraphNode *const *in, int n, const TensorOpArgs *a) {
    if (n < 1 || n > 8 || (tensor_op_flags(op) & (TENSOR_OPF_RANDOM | TENSOR_OPF_INPLACE | TENSOR_OPF_CREATION))) return NULL;
    int fp[8];
    for (int i = 0; i < n; i++) {
        fp[i] = in[i] ? rt_map_get(&d->back, in[i]) : -2;
        if (fp[i] == -1) return NULL;
    }
    TensorOpArgs defaults = TENSOR_OP_ARGS_INIT;
    if (!a) a = &defaults;
    for (int q = 0; q < d->n; q++) {
        const GraphNode *x = d->fn[q];
        if (x->kind != GRAPH_CALL_FUNCTION || x->exec.kind != GRAPH_EXEC_TENSOR_OP || x->exec.op != op ||
            x->exec.n_inputs != n || x->exec.n_outputs > 1 || d->canon[q] != q)
            continue;
        bool same = true;
        for (int i = 0; i < n && same; i++) {
            int ip = x->exec.inputs[i] ? pos_of(d, x->exec.inputs[i]) : -2;
            if (ip >= 0) ip = d->canon[ip];
            same = ip == fp[i];
        }
        if (same && args_equal(&x->exec.args, a)) return avail(d, q);
    }
    return NULL;
}

static GraphNode *rd_op(RtD *d, TensorOp op, GraphNode *const *in, int n, const TensorOpArgs *a) {
    for (int i = 0; i < n; i++)
        if (!in[i] && i < tensor_op_info(op)->in_min) {
            rd_fail(d, "the derivative of %s used a missing value", d->cur >= 0 ? d->fn[d->cur]->name : "?");
            return err_node(d);
        }
    GraphNode *c = cse(d, op, in, n, a);
    if (c) return c;
    GraphNode *r = graph_call_tensor_op(d->b, op, in, n, a, tensor_op_name(op), NULL, -1, NULL, NULL, 0);
    if (!r->is_tensor && r->exec.n_outputs <= 1) {
        rd_fail(d, "the derivative of %s builds an ill-typed %s", d->cur >= 0 ? d->fn[d->cur]->name : "?",
                tensor_op_name(op));
        return err_node(d);
    }
    return r;
}

static GraphNode *rd_bin(RtD *d, TensorOp op, GraphNode *x, GraphNode *y) {
    GraphNode *in[2] = {x, y};
    return rd_op(d, op, in, 2, NULL);
}

static GraphNode *rd_sc(RtD *d, TensorOp op, GraphNode *x, TensorScalar s) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.scalar = s;
    return rd_op(d, op, &x, 1, &a);
}

static GraphNode *rd_internal(RtD *d, const RtInternal *desc, GraphNode *const *in, int n, const TensorMeta *meta) {
    GraphOpaque *o = rt_internal_new(desc);
    if (!o) {
        rd_fail(d, "out of memory");
        return err_node(d);
    }
    GraphArg args[8];
    for (int i = 0; i < n && i < 8; i++) args[i] = in[i] ? graph_arg_node(in[i]) : graph_arg_none();
    GraphNode *r = graph_node_new(d->b, GRAPH_CALL_FUNCTION, "marker_grad_hooks", o->repr, args, n < 8 ? n : 8, NULL, NULL, 0);
    r->exec.kind = GRAPH_EXEC_CUSTOM_OP;
    r->exec.n_inputs = n;
    r->exec.inputs = calloc((size_t)(n ? n : 1), sizeof(GraphNode *));
    EM_ASSERT(r->exec.inputs, "out of memory");
    for (int i = 0; i < n; i++) r->exec.inputs[i] = in[i];
    r->exec.opaque = o;
    r->exec.n_outputs = 1;
    r->is_tensor = true;
    r->meta = *meta;
    return r;
}

static GraphNode *hook_call(RtD *d, const GraphNode *hook, GraphNode *g) {
    GraphArg a = graph_arg_node(g);
    GraphNode *r = graph_node_new(d->b, GRAPH_CALL_FUNCTION, hook->name, hook->target, &a, 1, NULL, NULL, 0);
    r->exec.kind = GRAPH_EXEC_HOOK;
    r->exec.n_inputs = 1;
    r->exec.inputs = calloc(1, sizeof(GraphNode *));
    EM_ASSERT(r->exec.inputs, "out of memory");
    r->exec.inputs[0] = g;
    r->exec.opaque = hook->exec.opaque;
    graph_opaque_incref(r->exec.opaque);
    r->is_tensor = true;
    r->meta = g->meta;
    return r;
}

/* ---- forward values in the backward ---------------------------------------------------------------- */

static bool recomputable(RtD *d, int p) {
    const GraphNode *n = d->fn[p];
    if (n->exec.kind == GRAPH_EXEC_GETITEM) {
        const GraphNode *src = n->exec.inputs[0];
        return src->exec.kind == GRAPH_EXEC_TENSOR_OP && (tensor_op_flags(src->exec.op) & TENSOR_OPF_VIEW);
    }
    if (n->exec.kind != GRAPH_EXEC_TENSOR_OP || n->exec.n_outputs > 1) return false;
    TensorOp op = n->exec.op;
    if (tensor_op_flags(op) & (TENSOR_OPF_INPLACE | TENSOR_OPF_RANDOM)) return false;
    if (tensor_op_flags(op) & TENSOR_OPF_VIEW) return true;
    if (d->side[p] >= 0) return true;   /* gelu from its side value: libm-free */
    if (op == TENSOR_OP_LAYER_NORM) return d->spec->recompute_norm;
    return rt_cheap_pointwise(n);
}

/* the op node whose inputs a recomputation reads */
static const GraphNode *recompute_src(const GraphNode *n) {
    return n->exec.kind == GRAPH_EXEC_GETITEM ? n->exec.inputs[0] : n;
}

static int pos_of(RtD *d, const GraphNode *n) { return n ? rt_map_get(&d->pos, n) : -1; }

static GraphNode *avail(RtD *d, int p);

static GraphNode *recompute(RtD *d, int p) {
    const GraphNode *n = d->fn[p];
    if (d->side[p] >= 0) {
        /* gelu(x) = (0.5 * x) * (1 + e), bit for bit as the kernel computes */
        GraphNode *x = avail(d, pos_of(d, n->exec.inputs[0])), *sv = avail(d, d->side[p]);
        GraphNode *hx = rd_sc(d, TENSOR_OP_MUL_SCALAR, x, tensor_scalar_f(0.5));
        return rd_bin(d, TENSOR_OP_MUL, hx, rd_sc(d, TENSOR_OP_ADD_SCALAR, sv, tensor_scalar_i(1)));
    }
    const GraphNode *src = recompute_src(n);
    int sp = pos_of(d, src);
    GraphNode *r = n != src && sp >= 0 ? d->avail[sp] : NULL;   /* a multi-output op recomputed once */
    if (!r) {
        GraphNode *in[64];
        int k = src->exec.n_inputs < 64 ? src->exec.n_inputs : 64;
        for (int i = 0; i < k; i++) in[i] = src->exec.inputs[i] ? avail(d, pos_of(d, src->exec.inputs[i])) : NULL;
        r = graph_call_tensor_op(d->b, src->exec.op, in, k, &src->exec.args, src->target, NULL, -1, NULL, NULL, 0);
        if (n != src && sp >= 0) d->avail[sp] = r;
    }
    if (n != src) r = graph_getitem(d->b, r, n->exec.index);
    if (!r->is_tensor) {
        rd_fail(d, "cannot recompute %s in the backward", n->name);
        return err_node(d);
    }
    return r;
}

static GraphNode *avail(RtD *d, int p) {
    if (p < 0) {
        rd_fail(d, "a derivative read a value outside the graph");
        return err_node(d);
    }
    p = d->canon[p] >= 0 ? d->canon[p] : p;
    if (d->avail[p]) return d->avail[p];
    if (d->dry) {
        d->need[p] = true;
        GraphNode *ph = graph_placeholder(d->b, "dry", "dry");
        ph->is_tensor = true;
        ph->meta = d->fn[p]->meta;
        d->avail[p] = ph;
        rt_map_put(&d->back, ph, p);
        return ph;
    }
    if (d->saved[p]) return d->avail[p];   /* placeholder made up front; NULL only on bugs */
    if (!recomputable(d, p)) {
        rd_fail(d, "the backward needs %s, which is neither saved nor recomputable", d->fn[p]->name);
        return err_node(d);
    }
    d->avail[p] = recompute(d, p);
    rt_map_put(&d->back, d->avail[p], p);
    return d->avail[p];
}

/* ---- the rule API: node helpers -------------------------------------------------------------------- */

static const GraphNode *cur(RtD *d) { return d->fn[d->cur]; }

static bool diff_input(const GraphNode *n, int i) {
    const GraphAutogradFn *fn = graph_autograd_fn_of(n);
    if (fn) return i < fn->n_tensor_args;   /* (the others are what its backward reads) */
    uint32_t m = tensor_op_info(n->exec.op)->diff_inputs;
    return m == 0xffffffffu || (i < 32 && (m & (1u << i)));
}

/* the canonical value of input i of the rule's node, -1 when absent or outside the graph */
static int input_value(RtD *d, int i) {
    const GraphNode *n = cur(d);
    if (i >= n->exec.n_inputs || !n->exec.inputs[i]) return -1;
    int p = pos_of(d, n->exec.inputs[i]);
    return p < 0 ? -1 : d->canon[p];
}

/* does input i get a gradient edge (it requires grad), and is its gradient wanted */
static bool input_edge(RtD *d, int i) {
    int p = input_value(d, i);
    return p >= 0 && diff_input(cur(d), i) && d->rg[p];
}
static bool input_needed(RtD *d, int i) { return input_edge(d, i) && d->toward[input_value(d, i)]; }

/* the gradient of output k, NULL when none */
static GraphNode *output_grad(RtD *d, int k) {
    if (k >= d->n_out || d->out_pos[k] < 0) return NULL;
    int q = d->out_pos[k];
    if (d->dry) {
        if (!d->from[q]) return NULL;
        GraphNode *ph = graph_placeholder(d->b, "dry_g", "dry_g");
        ph->is_tensor = true;
        ph->meta = d->fn[q]->meta;
        return ph;
    }
    return d->grad[q];
}

static GraphNode *rd_sum_to(RtD *d, GraphNode *g, int ndim, const int64_t *shape) {
    const TensorMeta *m = &g->meta;
    if (m->ndim == ndim && memcmp(m->shape, shape, sizeof(int64_t) * (size_t)ndim) == 0) return g;
    int64_t dims[TENSOR_MAX_DIMS];
    int n = 0, lead = m->ndim - ndim;
    for (int i = 0; i < m->ndim; i++)
        if (i < lead || (shape[i - lead] == 1 && m->shape[i] != 1)) dims[n++] = i;
    GraphNode *s = g;
    if (n) {
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.ints = dims;
        a.n_ints = n;
        a.keepdim = true;
        s = rd_op(d, TENSOR_OP_SUM_DIM, &g, 1, &a);
    }
    if (s->meta.ndim == ndim) return s;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = shape;
    a.n_ints = ndim;
    return rd_op(d, TENSOR_OP_VIEW, &s, 1, &a);
}

/* ---- recording a rule: fakes and the op observer ------------------------------------------------------ */

/* a fake with m's geometry over no storage (meta mode runs no kernel) */
static Tensor *fake_new(RtD *d, const TensorMeta *m, int32_t fwd, GraphNode *node) {
    TensorStorage *st = tensor__no_storage();
    Tensor *t = st ? tensor__alloc_struct() : NULL;
    if (!t) {
        rd_fail(d, "out of memory");
        return NULL;
    }
    tensor__storage_incref(st);
    t->dtype = (uint8_t)(m->dtype < 0 ? TENSOR_FLOAT32 : m->dtype);
    t->storage = st;
    t->offset = m->offset;
    tensor__set_geometry(t, m->ndim, m->shape, m->strides);
    if (m->wrapped_number) t->flags |= TENSOR_F_WRAPPED_NUMBER;
    if (d->n_fakes == d->cap_fakes) {
        d->cap_fakes = d->cap_fakes ? d->cap_fakes * 2 : 32;
        d->fakes = realloc(d->fakes, sizeof *d->fakes * (size_t)d->cap_fakes);
        EM_ASSERT(d->fakes, "out of memory differentiating");
    }
    d->fakes[d->n_fakes++] = (Fake){t, fwd, node};
    return t;
}

/* maps a tensor the rule made to its node (the map holds a reference, so no later tensor can
 * take its address while the rule runs) */
static void fake_map(RtD *d, Tensor *t, GraphNode *node) {
    if (d->n_fakes == d->cap_fakes) {
        d->cap_fakes = d->cap_fakes ? d->cap_fakes * 2 : 32;
        d->fakes = realloc(d->fakes, sizeof *d->fakes * (size_t)d->cap_fakes);
        EM_ASSERT(d->fakes, "out of memory differentiating");
    }
    tensor_incref(t);
    d->fakes[d->n_fakes++] = (Fake){t, -1, node};
}

static const Fake *fake_find(RtD *d, const Tensor *t) {
    for (int i = d->n_fakes - 1; i >= 0; i--)
        if (d->fakes[i].t == t) return &d->fakes[i];
    return NULL;
}

static GraphNode *node_of(RtD *d, const Tensor *t) {
    const Fake *f = fake_find(d, t);
    if (!f) {
        rd_fail(d, "the derivative of %s computes with a tensor made outside the recorded ops", cur(d)->name);
        return err_node(d);
    }
    if (f->node) return f->node;
    if (f->fwd == -2) {
        rd_fail(d, "the derivative of %s reads an output that is never used", cur(d)->name);
        return err_node(d);
    }
    return avail(d, f->fwd);
}

static void fakes_clear(RtD *d) {
    for (int i = 0; i < d->n_fakes; i++) tensor_decref(d->fakes[i].t);
    d->n_fakes = 0;
}

/* the op observer while a rule runs: each op the rule runs becomes a backward node */
static void record(void *ctx, TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *args, Tensor *const *out,
                   int n_out) {
    RtD *d = ctx;
    if (d->fail) return;
    bool inplace = (tensor_op_flags(op) & TENSOR_OPF_INPLACE) != 0;
    if (!inplace && n_out > 0) {
        /* an op that returned a tensor the rule already had (x.to(x.dtype), contiguous) */
        bool known = true;
        for (int k = 0; k < n_out && known; k++) known = fake_find(d, out[k]) != NULL;
        if (known) return;
    }
    GraphNode *nodes[64];
    if (n_in > 64 || n_out > 64) {
        rd_fail(d, "the derivative of %s runs %s with too many operands", cur(d)->name, tensor_op_name(op));
        return;
    }
    for (int i = 0; i < n_in; i++) nodes[i] = in[i] ? node_of(d, in[i]) : NULL;
    if (d->fail) return;
    GraphNode *r = rd_op(d, op, nodes, n_in, args);
    if (inplace) return;   /* its output is input 0, which keeps its node */
    if (n_out == 1 && r->exec.n_outputs <= 1) {
        fake_map(d, out[0], r);
        return;
    }
    for (int k = 0; k < n_out; k++) {
        GraphNode *o = graph_getitem(d->b, r, k);
        if (!o->is_tensor) {
            rd_fail(d, "the derivative of %s builds an ill-typed %s", cur(d)->name, tensor_op_name(op));
            return;
        }
        fake_map(d, out[k], o);
    }
}

static void accumulate(RtD *d, int v, GraphNode *g);

/* why op's derivative cannot be recorded (NULL: it can) */
static const char *underivable(TensorOp op) {
    unsigned fl = tensor_op_flags(op);
    if (fl & TENSOR_OPF_NONDIFF) return "not differentiable";
    if (fl & TENSOR_OPF_COMPOSITE) return "composite: decomposed first";
    if (fl & TENSOR_OPF_INPLACE) return "in-place ops on tensors that require grad run eagerly";
    if (!ag_derivable(op)) return "its backward reads tensor data";
    return NULL;
}

bool rt_op_has_symbolic_rule(TensorOp op) { return (unsigned)op < TENSOR_OP_COUNT && !underivable(op); }
const char *rt_op_underivable_reason(TensorOp op) { return (unsigned)op < TENSOR_OP_COUNT ? underivable(op) : "unknown op"; }

/* Runs the node's rule (src/autograd's) over fakes, recording its ops into the backward graph;
 * the real run accumulates the input gradients it returns. */
static int run_fn_rule(RtD *d, int p);

static int run_rule(RtD *d, int p) {
    const GraphNode *x = d->fn[p];
    if (x->exec.kind == GRAPH_EXEC_AUTOGRAD_FN) return run_fn_rule(d, p);
    TensorOp op = x->exec.op;
    const char *why = underivable(op);
    if (why) return rd_fail(d, "no symbolic derivative for '%s' (%s)", tensor_op_name(op), why);
    d->cur = p;
    d->n_out = outputs_of(d, p, d->out_pos);
    int n_in = x->exec.n_inputs, n_out = d->n_out;
    if (n_in > 64 || n_out > 64) return rd_fail(d, "%s has too many operands to differentiate", x->name);
    Tensor *in[64], *out[64], *g[64], *gi[64];
    uint64_t edges = 0, needs = 0;
    /* output metas: the getitems' (or the node's), or inferred for outputs the graph never reads */
    TensorMeta inferred[64];
    int n_inferred = 0;
    if (n_out > 1) {
        TensorMeta metas[64];
        const TensorMeta *pm[64];
        for (int i = 0; i < n_in; i++) {
            if (x->exec.inputs[i]) metas[i] = x->exec.inputs[i]->meta;
            pm[i] = x->exec.inputs[i] ? &metas[i] : NULL;
        }
        n_inferred = tensor_op_infer(op, pm, n_in, &x->exec.args, inferred, 64);
        if (n_inferred < 0) tensor_error_clear();
    }
    for (int i = 0; i < n_in; i++) {
        in[i] = NULL;
        if (!x->exec.inputs[i]) continue;
        in[i] = fake_new(d, &x->exec.inputs[i]->meta, pos_of(d, x->exec.inputs[i]), NULL);
        if (input_edge(d, i) && i < 64) edges |= 1ull << i;
        if (input_needed(d, i) && i < 64) needs |= 1ull << i;
    }
    for (int k = 0; k < n_out; k++) {
        const TensorMeta *m = d->out_pos[k] >= 0 ? &d->fn[d->out_pos[k]]->meta : k < n_inferred ? &inferred[k] : &x->meta;
        out[k] = fake_new(d, m, d->out_pos[k] >= 0 ? d->out_pos[k] : -2, NULL);
        GraphNode *gn = output_grad(d, k);
        g[k] = gn ? fake_new(d, &gn->meta, -1, gn) : NULL;
    }
    int rc = -1;
    if (!d->fail) {
        TensorRecordSave save;
        tensor__record_begin(record, d, &save);
        rc = ag_derive(op, in, n_in, &x->exec.args, out, n_out, edges, needs, g, gi);
        tensor__record_end(&save);
    }
    if (rc < 0) {
        if (!d->fail) rd_fail(d, "the derivative of %s failed: %s", x->name, tensor_error_message());
        tensor_error_clear();
    } else {
        for (int j = 0; j < n_in; j++) {
            if (!gi[j]) continue;
            GraphNode *gn = d->fail ? NULL : node_of(d, gi[j]);
            if (!d->dry && !d->fail && x->exec.inputs[j] && diff_input(x, j)) accumulate(d, pos_of(d, x->exec.inputs[j]), gn);
            tensor_decref(gi[j]);
        }
    }
    fakes_clear(d);
    d->cur = -1;
    return d->fail ? -1 : 0;
}

/* A custom autograd function's rule: the user's backward as the tracer traced it, interpreted
 * over fakes like a rule (so its ops are recorded into the backward graph): the outputs'
 * gradients (zeros for an absent one), then the saved and kept tensors as forward values (read
 * through avail: saved or recomputed). */
static int run_fn_rule(RtD *d, int p) {
    const GraphNode *x = d->fn[p];
    const GraphAutogradFn *fn = graph_autograd_fn_of(x);
    d->cur = p;
    d->n_out = outputs_of(d, p, d->out_pos);
    int n_in = fn->n_outs + fn->n_saved + fn->n_kept;
    Tensor **in = calloc((size_t)(n_in + 1), sizeof *in);
    Tensor **out = calloc((size_t)(fn->n_args + 1), sizeof *out);
    EM_ASSERT(in && out, "out of memory differentiating");
    TensorRecordSave save;
    tensor__record_begin(record, d, &save);
    for (int k = 0; k < fn->n_outs && !d->fail; k++) {
        GraphNode *gn = output_grad(d, k);
        if (gn) {
            in[k] = fake_new(d, &gn->meta, -1, gn);
            if (in[k]) tensor_incref(in[k]);
            continue;
        }
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.ints = fn->out_meta[k].shape;
        a.n_ints = fn->out_meta[k].ndim;
        a.dtype = fn->out_meta[k].dtype;
        if (!(in[k] = ag_op1(TENSOR_OP_ZEROS, NULL, 0, &a))) rd_fail(d, "zeros for %s: %s", x->name, tensor_error_message());
    }
    for (int i = fn->n_outs; i < n_in && !d->fail; i++) {
        const GraphNode *v = x->exec.inputs[fn->n_tensor_args + i];
        in[i] = fake_new(d, &v->meta, pos_of(d, v), NULL);
        if (in[i]) tensor_incref(in[i]);
    }
    bool grad = ag_set_grad_enabled(false);
    int rc = d->fail ? -1 : rt_interpret(fn->bwd, in, n_in, out, fn->n_args, RT_INTERP_BACKWARD, &(RtExec){0});
    ag_set_grad_enabled(grad);
    tensor__record_end(&save);
    if (rc < 0 && !d->fail) rd_fail(d, "the backward of %s failed: %s", fn->name, tensor_error_message());
    tensor_error_clear();
    for (int j = 0; j < fn->n_args && !d->fail; j++) {
        int i = fn->arg_input[j];
        if (!out[j] || i < 0) continue;
        GraphNode *gn = node_of(d, out[j]);
        if (!d->dry && !d->fail) accumulate(d, pos_of(d, x->exec.inputs[i]), gn);
    }
    for (int i = 0; i < n_in; i++) tensor_decref(in[i]);
    for (int j = 0; j < fn->n_args; j++) tensor_decref(out[j]);
    free(in);
    free(out);
    fakes_clear(d);
    d->cur = -1;
    return d->fail ? -1 : 0;
}

/* ---- analysis ------------------------------------------------------------------------------------ */

/* a value autograd differentiates: a floating tensor of any width (it was float32 only, from the
 * float32-only first wave, so compiled autograd gave float64 inputs no gradient: zeros) */
static bool is_float(const GraphNode *n) {
    return n->is_tensor && n->meta.dtype >= 0 && tensor_dtype_is_floating(n->meta.dtype);
}

static void d_init(RtD *d, const Graph *f) {
    d->f = f;
    d->n = f->n_nodes;
    size_t n = (size_t)(d->n ? d->n : 1);
    d->fn = calloc(n, sizeof *d->fn);
    d->canon = malloc(n * sizeof *d->canon);
    d->getitems = calloc(n, sizeof *d->getitems);
    d->n_getitems = calloc(n, sizeof *d->n_getitems);
    d->placeholder = malloc(n * sizeof *d->placeholder);
    d->rg = calloc(n, 1);
    d->from = calloc(n, 1);
    d->toward = calloc(n, 1);
    d->hooks = calloc(n, sizeof *d->hooks);
    d->n_hooks = calloc(n, sizeof *d->n_hooks);
    d->need = calloc(n, 1);
    d->saved = calloc(n, 1);
    d->avail = calloc(n, sizeof *d->avail);
    d->grad = calloc(n, sizeof *d->grad);
    d->contrib = calloc(n, sizeof *d->contrib);
    d->n_contrib = calloc(n, sizeof *d->n_contrib);
    d->side = malloc(n * sizeof *d->side);
    EM_ASSERT(d->side, "out of memory differentiating");
    EM_ASSERT(d->fn && d->canon && d->getitems && d->n_getitems && d->placeholder && d->rg && d->from && d->toward &&
                  d->hooks && d->n_hooks && d->need && d->saved && d->avail && d->grad && d->contrib && d->n_contrib,
              "out of memory differentiating");
    rt_map_positions(&d->pos, f);
    int i = 0, ph = 0;
    for (const GraphNode *x = f->first; x; x = x->next, i++) {
        d->fn[i] = x;
        d->placeholder[i] = x->kind == GRAPH_PLACEHOLDER ? ph++ : -1;
        d->side[i] = -1;
    }
    /* side values: erf(x * k) for gelu(x).  (silu has none: PyTorch computes it as
     * x / (1 + exp(-x)), not as x times the sigmoid) */
    for (int q = 0; q < d->n; q++) {
        const GraphNode *x = d->fn[q];
        if (x->exec.kind != GRAPH_EXEC_TENSOR_OP || x->exec.n_inputs != 1 || !x->exec.inputs[0]) continue;
        if (x->exec.op != TENSOR_OP_GELU || x->exec.args.approximate) continue;
        const GraphNode *in = x->exec.inputs[0];
        for (int r = 0; r < q && d->side[q] < 0; r++) {
            const GraphNode *y = d->fn[r];
            if (y->exec.kind != GRAPH_EXEC_TENSOR_OP || y->exec.n_inputs != 1) continue;
            if (y->exec.op == TENSOR_OP_ERF) {
                const GraphNode *m = y->exec.inputs[0];
                if (m && m->exec.kind == GRAPH_EXEC_TENSOR_OP && m->exec.op == TENSOR_OP_MUL_SCALAR && m->exec.inputs[0] == in &&
                    m->exec.args.scalar.kind == TENSOR_FLOAT32 && m->exec.args.scalar.f == RT_GELU_ERF_K)
                    d->side[q] = r;
            }
        }
    }
    d->cur = -1;
}

static void d_fini(RtD *d) {
    for (int i = 0; i < d->n; i++) {
        free(d->getitems[i]);
        free(d->hooks[i]);
        free(d->contrib[i]);
    }
    free(d->contrib);
    free(d->n_contrib);
    free(d->fn);
    free(d->canon);
    free(d->getitems);
    free(d->n_getitems);
    free(d->placeholder);
    free(d->rg);
    free(d->from);
    free(d->toward);
    free(d->hooks);
    free(d->n_hooks);
    free(d->need);
    free(d->saved);
    free(d->avail);
    free(d->grad);
    free(d->side);
    rt_map_fini(&d->pos);
    rt_map_fini(&d->back);
    free(d->fail);
    fakes_clear(d);
    free(d->fakes);
}

static void add_hook(RtD *d, int v, HookRef h) {
    d->hooks[v] = realloc(d->hooks[v], sizeof(HookRef) * (size_t)(d->n_hooks[v] + 1));
    EM_ASSERT(d->hooks[v], "out of memory");
    d->hooks[v][d->n_hooks[v]++] = h;
}

/* canonical values, requires_grad, hooks, toward */
static int analyse(RtD *d) {
    const RtDiffSpec *s = d->spec;
    int marker = 0;
    for (int p = 0; p < d->n; p++) {
        const GraphNode *x = d->fn[p];
        d->canon[p] = -1;
        switch (x->kind) {
        case GRAPH_PLACEHOLDER: {
            d->canon[p] = p;
            int i = d->placeholder[p];
            d->rg[p] = s->input_rg[i] && is_float(x);
            d->toward[p] = d->rg[p] && s->input_needed[i];
            continue;
        }
        case GRAPH_OUTPUT: continue;
        default: break;
        }
        switch (x->exec.kind) {
        case GRAPH_EXEC_TENSOR_OP: {
            unsigned fl = tensor_op_flags(x->exec.op);
            bool any = false, tow = false;
            for (int j = 0; j < x->exec.n_inputs; j++) {
                int q = pos_of(d, x->exec.inputs[j]);
                if (q < 0) continue;
                q = d->canon[q];
                if (q >= 0 && d->rg[q]) {
                    if (fl & TENSOR_OPF_INPLACE)
                        return rd_fail(d, "in-place %s on a tensor that requires grad", tensor_op_name(x->exec.op));
                    if (diff_input(x, j)) {
                        any = true;
                        tow |= d->toward[q];
                    }
                }
            }
            bool multi = x->exec.n_outputs > 1;
            d->canon[p] = multi ? -1 : p;
            d->rg[p] = !(fl & TENSOR_OPF_NONDIFF) && !x->no_grad && any && (multi || is_float(x));
            d->toward[p] = d->rg[p] && tow;
            if (multi) {
                d->getitems[p] = malloc(sizeof(int) * (size_t)x->exec.n_outputs);
                EM_ASSERT(d->getitems[p], "out of memory");
                d->n_getitems[p] = x->exec.n_outputs;
                for (int k = 0; k < x->exec.n_outputs; k++) d->getitems[p][k] = -1;
            }
            break;
        }
        case GRAPH_EXEC_AUTOGRAD_FN: {
            /* differentiable in its tensor arguments only: its backward is the user's */
            const GraphAutogradFn *fn = graph_autograd_fn_of(x);
            if (!fn) return rd_fail(d, "malformed autograd function node %s", x->name);
            if (fn->once_differentiable)
                return rd_fail(d, "%s's backward is @once_differentiable (create_graph must see it)", fn->name);
            bool any = false, tow = false;
            for (int j = 0; j < fn->n_tensor_args; j++) {
                int q = pos_of(d, x->exec.inputs[j]);
                q = q >= 0 ? d->canon[q] : -1;
                if (q < 0 || !d->rg[q]) continue;
                any = true;
                tow |= d->toward[q];
                for (int k = 0; k < fn->n_outs; k++)
                    if (fn->dirty[k] >= 0 && fn->arg_input[fn->dirty[k]] == j)
                        return rd_fail(d, "%s marks a tensor that requires grad dirty", fn->name);
            }
            bool multi = x->exec.n_outputs > 1;
            d->canon[p] = multi ? -1 : p;
            d->rg[p] = !x->no_grad && any && (multi || (is_float(x) && !(fn->non_differentiable & 1)));
            d->toward[p] = d->rg[p] && tow;
            if (multi) {
                d->getitems[p] = malloc(sizeof(int) * (size_t)x->exec.n_outputs);
                EM_ASSERT(d->getitems[p], "out of memory");
                d->n_getitems[p] = x->exec.n_outputs;
                for (int k = 0; k < x->exec.n_outputs; k++) d->getitems[p][k] = -1;
            }
            break;
        }
        case GRAPH_EXEC_GETITEM: {
            int src = pos_of(d, x->exec.inputs[0]);
            if (src < 0 || !d->getitems[src] || x->exec.index >= d->n_getitems[src])
                return rd_fail(d, "getitem %s of an unknown node", x->name);
            int *slot = &d->getitems[src][x->exec.index];
            if (*slot < 0) *slot = p;
            d->canon[p] = *slot;
            d->rg[p] = d->rg[src] && is_float(x);
            const GraphAutogradFn *sfn = graph_autograd_fn_of(d->fn[src]);
            if (sfn && x->exec.index < 64 && (sfn->non_differentiable >> x->exec.index & 1)) d->rg[p] = false;
            d->toward[p] = d->rg[p] && d->toward[src];
            break;
        }
        case GRAPH_EXEC_HOOK: {
            int q = pos_of(d, x->exec.inputs[0]);
            q = q >= 0 ? d->canon[q] : -1;
            d->canon[p] = q;
            if (q >= 0) {
                d->rg[p] = d->rg[q];
                d->toward[p] = d->toward[q];
                if (d->rg[q] && d->placeholder[q] < 0) add_hook(d, q, (HookRef){x, -1, -1});
            }
            break;
        }
        case GRAPH_EXEC_MARKER:
            for (int j = 0; j < x->exec.n_inputs; j++) {
                int q = pos_of(d, x->exec.inputs[j]);
                q = q >= 0 ? d->canon[q] : -1;
                if (q >= 0 && d->rg[q] && d->placeholder[q] < 0) add_hook(d, q, (HookRef){NULL, marker, j});
            }
            marker++;
            break;
        default: {
            for (int j = 0; j < x->exec.n_inputs; j++) {
                int q = pos_of(d, x->exec.inputs[j]);
                q = q >= 0 ? d->canon[q] : -1;
                if (q >= 0 && d->rg[q]) return rd_fail(d, "script call %s on a tensor that requires grad", x->name);
            }
            d->canon[p] = x->exec.n_outputs > 1 ? -1 : p;
            if (x->exec.n_outputs > 1) {
                d->getitems[p] = malloc(sizeof(int) * (size_t)x->exec.n_outputs);
                EM_ASSERT(d->getitems[p], "out of memory");
                d->n_getitems[p] = x->exec.n_outputs;
                for (int k = 0; k < x->exec.n_outputs; k++) d->getitems[p][k] = -1;
            }
            break;
        }
        }
    }
    return 0;
}

/* the canonical value positions of node p's outputs */
static int outputs_of(RtD *d, int p, int *out) {
    if (d->getitems[p]) {
        for (int k = 0; k < d->n_getitems[p]; k++) out[k] = d->getitems[p][k];
        return d->n_getitems[p];
    }
    out[0] = p;
    return 1;
}

static bool has_from(RtD *d, int p) {
    int o[64];
    int k = outputs_of(d, p, o);
    for (int i = 0; i < k; i++)
        if (o[i] >= 0 && d->from[o[i]]) return true;
    return false;
}

static bool is_rule_node(const GraphNode *x) {
    return x->kind != GRAPH_PLACEHOLDER && x->kind != GRAPH_OUTPUT &&
           (x->exec.kind == GRAPH_EXEC_TENSOR_OP || x->exec.kind == GRAPH_EXEC_AUTOGRAD_FN);
}

/* from: reached by a defined tangent through nodes that run */
static void flow_from(RtD *d) {
    const RtDiffSpec *s = d->spec;
    for (int k = 0; k < s->n_outs; k++) {
        int p = pos_of(d, s->outs[k]);
        if (p >= 0 && d->canon[p] >= 0 && s->tangent_defined[k] && d->rg[d->canon[p]]) d->from[d->canon[p]] = true;
    }
    for (int p = d->n - 1; p >= 0; p--) {
        const GraphNode *x = d->fn[p];
        if (!is_rule_node(x) || !d->rg[p] || !d->toward[p] || !has_from(d, p)) continue;
        for (int j = 0; j < x->exec.n_inputs; j++) {
            int q = pos_of(d, x->exec.inputs[j]);
            q = q >= 0 ? d->canon[q] : -1;
            if (q >= 0 && d->rg[q] && d->toward[q] && diff_input(x, j)) d->from[q] = true;
        }
    }
}

static bool live(RtD *d, int p) { return is_rule_node(d->fn[p]) && d->rg[p] && d->toward[p] && has_from(d, p); }

/* ---- running rules ------------------------------------------------------------------------------------ */

static void accumulate(RtD *d, int v, GraphNode *g) {
    if (v < 0 || !g) return;
    v = d->canon[v];
    if (v < 0 || !d->rg[v] || !d->toward[v]) return;
    const TensorMeta *m = &d->fn[v]->meta;
    if (g->meta.ndim != m->ndim || memcmp(g->meta.shape, m->shape, sizeof(int64_t) * (size_t)m->ndim)) {
        bool ok = m->ndim <= g->meta.ndim;
        for (int i = 0; i < m->ndim && ok; i++) {
            int64_t a = m->shape[m->ndim - 1 - i], b = g->meta.shape[g->meta.ndim - 1 - i];
            ok = a == b || a == 1;
        }
        if (!ok) {
            rd_fail(d, "the derivative of %s has an incompatible shape", cur(d)->name);
            return;
        }
        g = rd_sum_to(d, g, m->ndim, m->shape);
    }
    if (g->meta.dtype != m->dtype) {
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.dtype = m->dtype;
        g = rd_op(d, TENSOR_OP_TO_DTYPE, &g, 1, &a);
    }
    if (d->spec->split_inputs && d->placeholder[v] >= 0) {
        GraphNode **c = realloc(d->contrib[v], sizeof *c * (size_t)(d->n_contrib[v] + 1));
        EM_ASSERT(c, "out of memory differentiating");
        c[d->n_contrib[v]++] = g;
        d->contrib[v] = c;
        d->grad[v] = g;
        return;
    }
    d->grad[v] = d->grad[v] ? rd_bin(d, TENSOR_OP_ADD, d->grad[v], g) : g;
}

static void apply_hooks(RtD *d, int v) {
    if (v < 0 || !d->grad[v] || !d->n_hooks[v] || !d->toward[v]) return;
    for (int i = 0; i < d->n_hooks[v]; i++) {
        HookRef *h = &d->hooks[v][i];
        GraphNode *g = d->grad[v];
        if (h->node) {
            d->grad[v] = hook_call(d, h->node, g);
        } else {
            RtInternal desc = {.kind = RT_INT_DYN_HOOK, .marker = h->marker, .index = h->index};
            d->grad[v] = rd_internal(d, &desc, &g, 1, &g->meta);
        }
    }
}

static int dry_run(RtD *d) {
    Graph *real = d->b;
    d->b = graph_new("dry");
    d->dry = true;
    d->err_node = NULL;
    int rc = 0;
    for (int p = d->n - 1; p >= 0 && rc == 0; p--)
        if (live(d, p)) rc = run_rule(d, p);
    graph_free(d->b);
    d->b = real;
    d->dry = false;
    d->err_node = NULL;
    memset(d->avail, 0, sizeof *d->avail * (size_t)d->n);
    rt_map_fini(&d->back);   /* its keys were nodes of the dry graph */
    return rc;
}

/* which needed values the forward saves (the rest are recomputed) */
static void decide_saved(RtD *d) {
    bool *direct = malloc((size_t)(d->n ? d->n : 1));
    EM_ASSERT(direct, "out of memory");
    memcpy(direct, d->need, (size_t)d->n);
    for (int p = d->n - 1; p >= 0; p--) {
        if (!d->need[p]) continue;
        const GraphNode *x = d->fn[p];
        bool re = d->recompute && x->kind != GRAPH_PLACEHOLDER && recomputable(d, p);
        const GraphNode *src = recompute_src(x);
        for (int j = 0; re && j < src->exec.n_inputs; j++) {
            int q = pos_of(d, src->exec.inputs[j]);
            q = q >= 0 ? d->canon[q] : -1;
            if (src->exec.inputs[j] && (q < 0 || !(d->placeholder[q] >= 0 || direct[q]))) re = false;
        }
        if (re && d->side[p] >= 0 && !direct[d->side[p]]) re = false;   /* the side value must be kept anyway */
        if (!re) {
            d->saved[p] = true;
            continue;
        }
        for (int j = 0; j < src->exec.n_inputs; j++) {
            int q = pos_of(d, src->exec.inputs[j]);
            if (q >= 0 && d->canon[q] >= 0) d->need[d->canon[q]] = true;
        }
        if (d->side[p] >= 0) d->need[d->side[p]] = true;
    }
    free(direct);
}

int rt_diff(const Graph *f, const RtDiffSpec *spec, RtDiffResult *res) {
    memset(res, 0, sizeof *res);
    RtD d;
    memset(&d, 0, sizeof d);
    d.spec = spec;
    d.recompute = spec->recompute;
    d_init(&d, f);
    int rc = -1;
    Graph *b = graph_new("backward");
    d.b = b;
    if (analyse(&d) < 0) goto done;
    flow_from(&d);
    res->out_rg = calloc((size_t)(spec->n_outs ? spec->n_outs : 1), sizeof(bool));
    EM_ASSERT(res->out_rg, "out of memory");
    for (int k = 0; k < spec->n_outs; k++) {
        int p = pos_of(&d, spec->outs[k]);
        res->out_rg[k] = p >= 0 && d.canon[p] >= 0 && d.rg[d.canon[p]];
    }
    int n_in = 0;
    for (int p = 0; p < d.n; p++) n_in += d.placeholder[p] >= 0;
    res->in_path = calloc((size_t)(n_in ? n_in : 1), sizeof(bool));
    EM_ASSERT(res->in_path, "out of memory");
    for (int p = 0; p < d.n; p++)
        if (d.placeholder[p] >= 0) res->in_path[d.placeholder[p]] = d.canon[p] >= 0 && d.from[d.canon[p]];
    if (dry_run(&d) < 0) goto done;
    /* placeholders: tangents, then saved values */
    GraphNode **tangent = calloc((size_t)(spec->n_outs ? spec->n_outs : 1), sizeof *tangent);
    EM_ASSERT(tangent, "out of memory");
    for (int k = 0; k < spec->n_outs; k++) {
        char name[32];
        snprintf(name, sizeof name, "tangents_%d", k + 1);
        tangent[k] = graph_placeholder(b, name, name);
        tangent[k]->is_tensor = true;
        tangent[k]->meta = spec->outs[k]->meta;
    }
    if (spec->saved) {
        for (int i = 0; i < spec->n_saved; i++) {
            int p = pos_of(&d, spec->saved[i]);
            if (p >= 0) d.saved[p] = true;
        }
    } else {
        decide_saved(&d);
    }
    res->saved = malloc(sizeof(GraphNode *) * (size_t)(d.n ? d.n : 1));
    EM_ASSERT(res->saved, "out of memory");
    for (int p = 0; p < d.n; p++) {
        if (!d.saved[p]) continue;
        char name[300];
        snprintf(name, sizeof name, "saved_%s", d.fn[p]->name);
        GraphNode *ph = graph_placeholder(b, name, name);
        ph->is_tensor = true;
        ph->meta = d.fn[p]->meta;
        d.avail[p] = ph;
        rt_map_put(&d.back, ph, p);
        res->saved[res->n_saved++] = (GraphNode *)d.fn[p];
    }
    for (int p = 0; p < d.n; p++)
        if (d.need[p] && !d.saved[p]) res->n_recomputed++;
    for (int k = 0; k < spec->n_outs; k++) {
        int p = pos_of(&d, spec->outs[k]);
        if (p < 0 || d.canon[p] < 0 || !spec->tangent_defined[k] || !d.rg[d.canon[p]]) continue;
        p = d.canon[p];
        d.grad[p] = d.grad[p] ? rd_bin(&d, TENSOR_OP_ADD, d.grad[p], tangent[k]) : tangent[k];
    }
    free(tangent);
    for (int p = d.n - 1; p >= 0 && !d.fail; p--) {
        const GraphNode *x = d.fn[p];
        if (x->kind == GRAPH_OUTPUT || x->kind == GRAPH_PLACEHOLDER) continue;
        if (!is_rule_node(x)) continue;
        int o[64];
        int k = outputs_of(&d, p, o);
        if (d.toward[p])
            for (int i = 0; i < k; i++) apply_hooks(&d, o[i]);
        if (live(&d, p)) run_rule(&d, p);
    }
    if (d.fail) goto done;
    /* one gradient per forward placeholder (split_inputs: its first contribution), then the
     * other contributions of each placeholder in its extra slots */
    int n_ph = 0;
    for (int p = 0; p < d.n; p++) n_ph += d.placeholder[p] >= 0;
    res->extra_slots = calloc((size_t)(n_ph ? n_ph : 1), sizeof(int));
    EM_ASSERT(res->extra_slots, "out of memory");
    for (int p = 0; p < d.n; p++) {
        int i = d.placeholder[p];
        if (i < 0 || !spec->split_inputs) continue;
        res->extra_slots[i] = spec->extra_slots ? spec->extra_slots[i] : d.n_contrib[p] > 1 ? d.n_contrib[p] - 1 : 0;
        if (d.n_contrib[p] > res->extra_slots[i] + 1) {
            rd_fail(&d, "%s has more gradient contributions than its edges", d.fn[p]->name);
            goto done;
        }
        res->n_extra += res->extra_slots[i];
    }
    GraphArg *outs = calloc((size_t)(n_ph + res->n_extra + 1), sizeof *outs);
    EM_ASSERT(outs, "out of memory");
    for (int p = 0, at = n_ph; p < d.n; p++) {
        int i = d.placeholder[p];
        if (i < 0) continue;
        bool want = spec->input_needed[i];
        if (!spec->split_inputs) {
            outs[i] = want && d.grad[p] ? graph_arg_node(d.grad[p]) : graph_arg_none();
            continue;
        }
        outs[i] = want && d.n_contrib[p] ? graph_arg_node(d.contrib[p][0]) : graph_arg_none();
        for (int k = 1; k <= res->extra_slots[i]; k++)
            outs[at++] = want && k < d.n_contrib[p] ? graph_arg_node(d.contrib[p][k]) : graph_arg_none();
    }
    graph_output(b, outs, n_ph + res->n_extra);
    free(outs);
    char err[256];
    if (graph_verify(b, err, sizeof err) < 0) {
        rd_fail(&d, "backward graph is malformed: %s", err);
        goto done;
    }
    graph_eliminate_dead_code(b);
    res->bwd = b;
    b = NULL;
    rc = 0;
done:
    if (d.fail) {
        res->fail = d.fail;
        d.fail = NULL;
    }
    graph_free(b);
    d_fini(&d);
    return rc;
}

void rt_split_dropouts(Graph *g, GraphNode **refs, int n_refs) {
    for (GraphNode *n = g->first, *next; n; n = next) {
        next = n->next;
        if (n->exec.kind != GRAPH_EXEC_TENSOR_OP || n->exec.op != TENSOR_OP_DROPOUT || !n->exec.args.train ||
            n->exec.args.p <= 0 || !n->is_tensor || n->meta.dtype != TENSOR_FLOAT32)
            continue;
        GraphNode *x = n->exec.inputs[0];
        GraphNode *dm = graph_call_tensor_op(g, TENSOR_OP_NATIVE_DROPOUT, &x, 1, &n->exec.args, "native_dropout", NULL, -1,
                                             NULL, NULL, 0);
        dm->requires_grad = n->requires_grad;
        graph_move_before(g, dm, n);
        GraphNode *outs[2];
        for (int k = 0; k < 2; k++) {
            outs[k] = graph_getitem(g, dm, k);
            EM_ASSERT(outs[k]->is_tensor, "native_dropout's outputs have metadata");
            graph_move_before(g, outs[k], n);
        }
        graph_replace_uses(g, n, outs[0]);
        for (int i = 0; i < n_refs; i++)
            if (refs[i] == n) refs[i] = outs[0];
        if (graph_erase(g, n) < 0) EM_UNREACHABLE();
    }
}

void rt_add_side_values(Graph *g) {
    for (GraphNode *n = g->first; n; n = n->next) {
        if (n->exec.kind != GRAPH_EXEC_TENSOR_OP || n->exec.n_inputs != 1 || !n->exec.inputs[0] || !n->is_tensor ||
            n->meta.dtype != TENSOR_FLOAT32)
            continue;
        GraphNode *x = n->exec.inputs[0];
        if (n->exec.op == TENSOR_OP_GELU && !n->exec.args.approximate) {
            TensorOpArgs a = TENSOR_OP_ARGS_INIT;
            a.scalar = tensor_scalar_f(RT_GELU_ERF_K);
            GraphNode *xs = graph_call_tensor_op(g, TENSOR_OP_MUL_SCALAR, &x, 1, &a, "mul", NULL, -1, NULL, NULL, 0);
            GraphNode *e = graph_call_tensor_op(g, TENSOR_OP_ERF, &xs, 1, NULL, "erf", NULL, -1, NULL, NULL, 0);
            graph_move_before(g, xs, n);
            graph_move_before(g, e, n);
        }
    }
}

void rt_diff_result_fini(RtDiffResult *r) {
    graph_free(r->bwd);
    free(r->saved);
    free(r->out_rg);
    free(r->in_path);
    free(r->extra_slots);
    free(r->fail);
    memset(r, 0, sizeof *r);
}

void rt_diff_requires_grad(const Graph *f, const bool *input_rg, bool *rg) {
    RtD d;
    memset(&d, 0, sizeof d);
    bool *needed = calloc((size_t)(f->n_nodes + 1), 1);
    RtDiffSpec s = {.input_rg = input_rg, .input_needed = needed};
    d.spec = &s;
    d_init(&d, f);
    d.b = NULL;
    analyse(&d);
    for (int p = 0; p < d.n; p++) rg[p] = d.canon[p] >= 0 ? d.rg[d.canon[p]] : d.rg[p];
    free(needed);
    d_fini(&d);
}

GraphNode *rt_canon(GraphNode *n) {
    while (n && n->exec.kind == GRAPH_EXEC_HOOK && n->exec.n_inputs == 1) n = n->exec.inputs[0];
    return n;
}
