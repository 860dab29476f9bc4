/* rt_train.h — training-run helpers for the runtime suites: run a graph compiled and eagerly on
 * separate copies of the same inputs, reduce the outputs with fixed random cotangents, call
 * backward, and compare outputs and every input's gradient. */
#ifndef EMBER_TESTS_RT_TRAIN_H
#define EMBER_TESTS_RT_TRAIN_H

#include "rt_test.h"

typedef struct Run {
    Tensor *in[8];
    Tensor *out[8];
    int n_in, n_out;
    Tensor *loss;
} Run;

/* fresh leaf copies of src; rg[i] says which require grad */
static inline void run_inputs(Run *r, Tensor *const *src, const bool *rg, int n) {
    r->n_in = n;
    for (int i = 0; i < n; i++) {
        r->in[i] = rt_checkp(tensor_clone(src[i]), "clone");
        if (rg[i]) rt_check(ag_set_requires_grad(r->in[i], true), "requires_grad");
    }
}

/* loss = sum_k sum(out_k * cot_k) over float outputs that require grad */
static inline void run_loss(Run *r, Tensor *const *cot) {
    Tensor *acc = NULL;
    for (int k = 0; k < r->n_out; k++) {
        if (!r->out[k] || tensor_dtype(r->out[k]) != TENSOR_FLOAT32 || !ag_requires_grad(r->out[k])) continue;
        Tensor *m = rt_checkp(ag_mul(r->out[k], cot[k]), "mul");
        Tensor *s = rt_checkp(ag_sum(m), "sum");
        tensor_decref(m);
        if (acc) {
            Tensor *t = rt_checkp(ag_add(acc, s), "add");
            tensor_decref(acc);
            tensor_decref(s);
            acc = t;
        } else {
            acc = s;
        }
    }
    r->loss = acc;
}

static inline void run_free(Run *r) {
    for (int i = 0; i < r->n_in; i++) tensor_decref(r->in[i]);
    for (int k = 0; k < r->n_out; k++) tensor_decref(r->out[k]);
    tensor_decref(r->loss);
    memset(r, 0, sizeof *r);
}

static inline void cotangents(Tensor *const *outs, int n, Tensor **cot) {
    for (int k = 0; k < n; k++)
        cot[k] = outs[k] && tensor_dtype(outs[k]) == TENSOR_FLOAT32 ? randn(tensor_ndim(outs[k]), tensor_shape(outs[k]), false) : NULL;
}

/* Runs g compiled (plan p, or a fresh plan) and eagerly, backward through both, and compares
 * outputs and gradients (tol < 0: bitwise).  Returns the plan's run kind. */
static inline RtRunKind train_compare_plan(RtPlan *p, const Graph *g, Tensor *const *src, const bool *rg, int n, double tol,
                                    const RtCallbacks *cb) {
    Run c, e;
    memset(&c, 0, sizeof c);
    memset(&e, 0, sizeof e);
    run_inputs(&c, src, rg, n);
    run_inputs(&e, src, rg, n);
    c.n_out = rt_plan_run(p, c.in, n, c.out, 8, cb);
    rt_check(c.n_out, "compiled run");
    RtRunKind kind = rt_plan_last_run(p);
    e.n_out = rt_run_eager(g, e.in, n, e.out, 8, cb);
    rt_check(e.n_out, "eager run");
    cr_assert_eq(c.n_out, e.n_out);
    Tensor *cot[8] = {0};
    cotangents(e.out, e.n_out, cot);
    for (int k = 0; k < c.n_out; k++) {
        if (!c.out[k]) continue;
        char what[64];
        snprintf(what, sizeof what, "output %d", k);
        expect_close(c.out[k], e.out[k], tol, what);
        cr_assert_eq(ag_requires_grad(c.out[k]), ag_requires_grad(e.out[k]), "output %d requires_grad", k);
    }
    run_loss(&c, cot);
    run_loss(&e, cot);
    cr_assert_eq(c.loss != NULL, e.loss != NULL);
    if (c.loss) {
        rt_check(ag_backward(1, &c.loss, NULL, false, false, 0, NULL), "compiled backward");
        rt_check(ag_backward(1, &e.loss, NULL, false, false, 0, NULL), "eager backward");
    }
    for (int i = 0; i < n; i++) {
        Tensor *gc = ag_grad_of(c.in[i]), *ge = ag_grad_of(e.in[i]);
        cr_assert_eq(gc != NULL, ge != NULL, "input %d: gradient %s compiled, %s eager", i, gc ? "set" : "missing",
                     ge ? "set" : "missing");
        char what[64];
        snprintf(what, sizeof what, "grad of input %d", i);
        if (gc) expect_close(gc, ge, tol, what);
    }
    for (int k = 0; k < 8; k++) tensor_decref(cot[k]);
    run_free(&c);
    run_free(&e);
    return kind;
}

static inline RtRunKind train_compare(const Graph *g, Tensor *const *src, const bool *rg, int n, double tol) {
    RtPlan *p = rt_checkp(rt_plan_new(g, NULL), "plan");
    RtRunKind k = train_compare_plan(p, g, src, rg, n, tol, NULL);
    rt_plan_free(p);
    return k;
}

#endif
