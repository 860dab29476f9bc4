/* rt_test.h — helpers shared by the runtime suites: building graphs by hand (placeholders with
 * contiguous metadata, op nodes, hook and marker nodes), random inputs, comparing tensors
 * bitwise or within a relative tolerance, running a graph eagerly (rt_run_eager) as the
 * reference, and a leak check around every test. */
#ifndef EMBER_TESTS_RT_TEST_H
#define EMBER_TESTS_RT_TEST_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember/autograd.h"
#include "ember/graph.h"
#include "src/runtime/runtime.h"

static int64_t rt_test_live_tensors;
static size_t rt_test_live_bytes;

static inline void rt_test_setup(void) {
    tensor_manual_seed(1234);
    rt_test_live_tensors = tensor_live_count();
    rt_test_live_bytes = tensor_live_storage_bytes();
}

static inline void rt_test_teardown(void) {
    cr_expect_eq(tensor_live_count(), rt_test_live_tensors, "leaked %lld tensors",
                 (long long)(tensor_live_count() - rt_test_live_tensors));
    cr_expect_eq(tensor_live_storage_bytes(), rt_test_live_bytes, "leaked %lld storage bytes",
                 (long long)tensor_live_storage_bytes() - (long long)rt_test_live_bytes);
}

static inline void rt_check(int rc, const char *what) {
    cr_assert(rc >= 0, "%s failed: %s: %s", what, tensor_error_kind_name(tensor_error_kind()), tensor_error_message());
}

static inline void *rt_checkp(void *p, const char *what) {
    cr_assert(p, "%s failed: %s: %s", what, tensor_error_kind_name(tensor_error_kind()), tensor_error_message());
    return p;
}

/* ---- graphs --------------------------------------------------------------------------------- */

static inline GraphNode *ph_dt(Graph *g, const char *name, TensorDtype dt, int nd, const int64_t *shape) {
    GraphNode *x = graph_placeholder(g, name, name);
    x->is_tensor = true;
    x->meta.dtype = dt;
    x->meta.ndim = nd;
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        x->meta.shape[i] = shape[i];
        x->meta.strides[i] = s;
        s *= shape[i] > 1 ? shape[i] : 1;
    }
    return x;
}

static inline GraphNode *ph(Graph *g, const char *name, int nd, const int64_t *shape) { return ph_dt(g, name, TENSOR_FLOAT32, nd, shape); }

static inline GraphNode *opn(Graph *g, TensorOp op, GraphNode *const *in, int n, const TensorOpArgs *a) {
    GraphNode *r = graph_call_tensor_op(g, op, in, n, a, NULL, NULL, -1, NULL, NULL, 0);
    cr_assert(r->is_tensor || r->exec.n_outputs > 1, "cannot infer %s", tensor_op_name(op));
    return r;
}

static inline GraphNode *op1(Graph *g, TensorOp op, GraphNode *x) { return opn(g, op, &x, 1, NULL); }
static inline GraphNode *op2(Graph *g, TensorOp op, GraphNode *x, GraphNode *y) {
    GraphNode *in[2] = {x, y};
    return opn(g, op, in, 2, NULL);
}
static inline GraphNode *opa(Graph *g, TensorOp op, GraphNode *x, TensorOpArgs a) { return opn(g, op, &x, 1, &a); }
static inline GraphNode *ops(Graph *g, TensorOp op, GraphNode *x, TensorScalar s) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.scalar = s;
    return opn(g, op, &x, 1, &a);
}
static inline GraphNode *linear(Graph *g, GraphNode *x, GraphNode *w, GraphNode *b) {
    GraphNode *in[3] = {x, w, b};
    return opn(g, TENSOR_OP_LINEAR, in, b ? 3 : 2, NULL);
}

static inline GraphNode *special(Graph *g, GraphExecKind kind, const char *name, GraphNode *const *in, int n, GraphOpaque *o) {
    GraphArg args[16];
    for (int i = 0; i < n; i++) args[i] = graph_arg_node(in[i]);
    GraphNode *h = graph_node_new(g, GRAPH_CALL_FUNCTION, name, name, args, n, NULL, NULL, 0);
    h->exec.kind = kind;
    h->exec.n_inputs = n;
    h->exec.inputs = calloc((size_t)(n ? n : 1), sizeof(GraphNode *));
    for (int i = 0; i < n; i++) h->exec.inputs[i] = in[i];
    h->exec.opaque = o;
    if (kind == GRAPH_EXEC_HOOK) {
        h->is_tensor = true;
        h->meta = in[0]->meta;
        h->requires_grad = in[0]->requires_grad;
    }
    return h;
}

static inline void output(Graph *g, GraphNode *const *v, int n) {
    GraphArg a[16];
    for (int i = 0; i < n; i++) a[i] = v[i] ? graph_arg_node(v[i]) : graph_arg_int(7);
    graph_output(g, a, n);
}

static inline void output1(Graph *g, GraphNode *v) { output(g, &v, 1); }

/* ---- tensors --------------------------------------------------------------------------------- */

static inline Tensor *randn(int nd, const int64_t *shape, bool rg) {
    Tensor *t = rt_checkp(tensor_randn(TENSOR_FLOAT32, nd, shape), "randn");
    if (rg) rt_check(ag_set_requires_grad(t, true), "requires_grad");
    return t;
}

/* 0 when equal bit for bit (tol < 0) or within tol relative to each element's magnitude */
static inline void expect_close(const Tensor *a, const Tensor *b, double tol, const char *what) {
    cr_assert(a && b, "%s: missing tensor", what);
    cr_assert_eq(tensor_ndim(a), tensor_ndim(b), "%s: ndim", what);
    for (int d = 0; d < tensor_ndim(a); d++) cr_assert_eq(tensor_shape(a)[d], tensor_shape(b)[d], "%s: shape", what);
    cr_assert_eq(tensor_dtype(a), tensor_dtype(b), "%s: dtype", what);
    int64_t n = tensor_numel(a);
    if (tensor_dtype(a) != TENSOR_FLOAT32) {
        cr_assert(tensor_equal(a, b), "%s: values differ", what);
        return;
    }
    float *x = malloc(sizeof(float) * (size_t)(n ? n : 1)), *y = malloc(sizeof(float) * (size_t)(n ? n : 1));
    rt_check(tensor_copy_to_buffer(a, TENSOR_FLOAT32, x), "copy");
    rt_check(tensor_copy_to_buffer(b, TENSOR_FLOAT32, y), "copy");
    for (int64_t i = 0; i < n; i++) {
        if (tol < 0) {
            cr_assert(memcmp(&x[i], &y[i], sizeof(float)) == 0 || (isnan(x[i]) && isnan(y[i])),
                      "%s: element %lld differs: %.9g vs %.9g (bitwise)", what, (long long)i, x[i], y[i]);
        } else {
            double m = fabs(y[i]) > 1 ? fabs(y[i]) : 1;
            cr_assert(fabs((double)x[i] - y[i]) <= tol * m, "%s: element %lld: %.9g vs %.9g", what, (long long)i, x[i], y[i]);
        }
    }
    free(x);
    free(y);
}

static inline void expect_bitwise(const Tensor *a, const Tensor *b, const char *what) { expect_close(a, b, -1, what); }

#endif
