/* src/runtime/rules.h — what a symbolic derivative rule sees.  A rule builds, in the backward
 * graph, the gradients of one forward node's inputs from the gradients of its outputs, op for
 * op as the eager rule in src/autograd/rules_*.c computes them (same ops, same order, same
 * scalars), so compiled gradients equal eager ones bit for bit.
 *
 *     static int bw_mul(RtD *d) {                       // eager: BW(mul)
 *         GraphNode *self = rd_in(d, 0), *other = rd_in(d, 1);   (unpacked in slot order)
 *         if (rd_needs(d, 0)) rd_grad(d, 0, rd_bin(d, TENSOR_OP_MUL, rd_g(d, 0), other));
 *         if (rd_needs(d, 1)) rd_grad(d, 1, rd_bin(d, TENSOR_OP_MUL, rd_g(d, 0), self));
 *         return 0;
 *     }
 *
 * rd_in / rd_out give forward values as the backward sees them (a saved tensor, or a recomputed
 * one); asking for one is what makes the forward save it.  Rules run twice: a dry run that only
 * records which forward values they ask for, then the real one.  Emitting never fails: a node
 * whose metadata cannot be inferred marks the differentiation as failed (the plan falls back to
 * eager) and a placeholder value is returned so the rule can finish. */
#ifndef EMBER_SRC_RUNTIME_RULES_H
#define EMBER_SRC_RUNTIME_RULES_H

#include "src/runtime/rt.h"

typedef struct RtD RtD;

GraphNode *rd_in(RtD *d, int i);                 /* NULL for an absent optional input */
GraphNode *rd_out(RtD *d, int k);
const TensorMeta *rd_in_meta(RtD *d, int i);     /* the forward input's metadata (NULL if absent) */
const TensorMeta *rd_out_meta(RtD *d, int k);
int rd_n_in(RtD *d);
int rd_n_out(RtD *d);
const TensorOpArgs *rd_args(RtD *d);
GraphNode *rd_g(RtD *d, int k);                  /* gradient of output k, NULL when none */
bool rd_needs(RtD *d, int i);                    /* is input i's gradient wanted */
void rd_grad(RtD *d, int i, GraphNode *g);       /* set input i's gradient (any broadcast shape) */
GraphNode *rd_op(RtD *d, TensorOp op, GraphNode *const *in, int n, const TensorOpArgs *a);
GraphNode *rd_internal(RtD *d, const RtInternal *desc, GraphNode *const *in, int n, const TensorMeta *meta);
int rd_fail(RtD *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- constructors (TENSOR_OP_ARGS_INIT defaults, like the ag_ wrappers) ----------------------- */

static inline GraphNode *rd_un(RtD *d, TensorOp op, GraphNode *x) { return rd_op(d, op, &x, 1, NULL); }
static inline GraphNode *rd_bin(RtD *d, TensorOp op, GraphNode *x, GraphNode *y) {
    GraphNode *in[2] = {x, y};
    return rd_op(d, op, in, 2, NULL);
}
static inline GraphNode *rd_sc(RtD *d, TensorOp op, GraphNode *x, TensorScalar s) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.scalar = s;
    return rd_op(d, op, &x, 1, &a);
}
static inline GraphNode *rd_dims(RtD *d, TensorOp op, GraphNode *x, const int64_t *dims, int n, bool keepdim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = dims;
    a.n_ints = n;
    a.keepdim = keepdim;
    return rd_op(d, op, &x, 1, &a);
}
static inline GraphNode *rd_dim(RtD *d, TensorOp op, GraphNode *x, int64_t dim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    return rd_op(d, op, &x, 1, &a);
}
static inline GraphNode *rd_masked_fill(RtD *d, GraphNode *x, GraphNode *mask, TensorScalar v) {
    GraphNode *in[2] = {x, mask};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.scalar = v;
    return rd_op(d, TENSOR_OP_MASKED_FILL, in, 2, &a);
}
static inline GraphNode *rd_zeros(RtD *d, const TensorMeta *m) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = m->shape;
    a.n_ints = m->ndim;
    a.dtype = m->dtype;
    return rd_op(d, TENSOR_OP_ZEROS, NULL, 0, &a);
}
static inline GraphNode *rd_full(RtD *d, TensorDtype dt, const TensorMeta *shape_of, TensorScalar v) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = shape_of->shape;
    a.n_ints = shape_of->ndim;
    a.dtype = dt;
    a.scalar = v;
    return rd_op(d, TENSOR_OP_FULL, NULL, 0, &a);
}
static inline TensorScalar rd_f(double v) { return tensor_scalar_f(v); }
static inline TensorScalar rd_i(int64_t v) { return tensor_scalar_i(v); }
static inline double rd_sv(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? s.f : (double)s.i; }

/* g summed to a shape (ag__sum_to) and g with reduced dims restored (ag__unsqueeze_reduced) */
GraphNode *rd_sum_to(RtD *d, GraphNode *g, int ndim, const int64_t *shape);
GraphNode *rd_unsqueeze_reduced(RtD *d, GraphNode *g, const TensorMeta *in, const int64_t *dims, int n, bool keepdim);

/* ---- the rule table (rules_pw.c, rules_nn.c) ----------------------------------------------------- */

typedef int (*RtRule)(RtD *d);
/* the rule of RT_INT_DROPOUT: grad * the mask the forward drew (eager's DropoutBackward) */
int rt_bw_dropout_mask(RtD *d);
/* The rule of op; NULL with *why = "nondiff" / "composite" / "no symbolic rule". */
RtRule rt_rule(TensorOp op, const char **why);

#endif
