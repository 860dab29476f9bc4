/* gradcheck.c — finite-difference checking of backward rules (torch.autograd.gradcheck), in
 * the inputs' own floating dtype (float32, float64, ...): the analytic Jacobian from one backward
 * per output element against central differences accumulated in double; optionally the same for
 * a gradient-of-gradient, which exercises create_graph (rules written with differentiable ops).
 * Perturbations are stored in the input's dtype and the step actually taken is read back, so a
 * float32 input is perturbed by its rounded step and a float64 one exactly. */
#include <math.h>
#include <stdio.h>

#include "src/autograd/autograd.h"
#include "src/tensor/dtype.h"

/* the address of flat (C-order) element i of a strided tensor */
static void *elem(const Tensor *t, int64_t i) {
    int64_t idx = i, off = t->offset;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (idx % t->shape[d]) * t->strides[d];
        idx /= t->shape[d];
    }
    return (char *)t->storage->data + off * (int64_t)tensor__elsize((TensorDtype)t->dtype);
}

static double elem_d(const Tensor *t, int64_t i) { return tensor__ld_d((TensorDtype)t->dtype, elem(t, i)); }
static void elem_set(Tensor *t, int64_t i, double v) { tensor__st_d((TensorDtype)t->dtype, elem(t, i), v); }

static void fail_msg(AgGradcheckOpts *o, const char *what, int input, int64_t ie, int64_t oe, double a, double n) {
    if (o->failure) return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s mismatch: input %d element %lld, output element %lld: analytic %.10g, numeric %.10g", what, input,
             (long long)ie, (long long)oe, a, n);
    o->failure = strdup(buf);
}

/* The scalar functional whose Jacobian is compared: first order: the outputs themselves;
 * second order: u . J(x) w for fixed random u, w (a function of the inputs through backward). */
typedef struct Probe {
    AgGradcheckFn fn;
    void *ctx;
    int n;
    Tensor *const *inputs;
    int *diff;                /* indices of inputs requiring grad */
    int k;
    Tensor *u;                /* second order: weights of the outputs */
    Tensor **w;               /* second order: weights of the first gradients */
} Probe;

/* returns the output (first order) or the 0-dim u.J.w (second order), built with graph */
static Tensor *evaluate(Probe *p, bool second, bool create_graph_for_second) {
    Tensor *out = p->fn(p->ctx, p->inputs);
    if (!out || !second) return out;
    Tensor **g = calloc((size_t)p->k, sizeof *g);
    Tensor **xs = calloc((size_t)p->k, sizeof *xs);
    Tensor *s = NULL;
    if (!g || !xs) goto done;
    for (int i = 0; i < p->k; i++) xs[i] = p->inputs[p->diff[i]];
    if (ag_grad(1, &out, &p->u, p->k, xs, true, create_graph_for_second, true, g) < 0) goto done;
    for (int i = 0; i < p->k; i++) {
        if (!g[i]) continue;
        Tensor *m = ag_mul(g[i], p->w[i]), *sm = m ? ag_sum(m) : NULL;
        tensor_decref(m);
        if (!sm) {
            tensor_decref(s);
            s = NULL;
            goto done;
        }
        if (!s) {
            s = sm;
        } else {
            Tensor *t = ag_add(s, sm);
            tensor_decref(s);
            tensor_decref(sm);
            s = t;
            if (!s) goto done;
        }
    }
    if (!s) s = tensor_zeros((TensorDtype)p->u->dtype, 0, NULL);
done:
    if (g)
        for (int i = 0; i < p->k; i++) tensor_decref(g[i]);
    free(g);
    free(xs);
    tensor_decref(out);
    return s;
}

static int check(Probe *p, bool second, AgGradcheckOpts *o) {
    int result = -1;
    Tensor *out = evaluate(p, second, true);
    if (!out) return -1;
    int64_t m = out->numel;
    Tensor **xs = calloc((size_t)p->k, sizeof *xs), **g = calloc((size_t)p->k, sizeof *g);
    double **ja = calloc((size_t)p->k, sizeof *ja);
    if (!xs || !g || !ja) goto done;
    for (int i = 0; i < p->k; i++) {
        xs[i] = p->inputs[p->diff[i]];
        ja[i] = calloc((size_t)(xs[i]->numel * m + 1), sizeof(double));
        if (!ja[i]) goto done;
    }
    /* analytic: one backward per output element (an output independent of the inputs, as the
     * gradient of a linear op is, has a zero Jacobian) */
    for (int64_t j = 0; j < m && ag_requires_grad(out); j++) {
        Tensor *go = tensor_zeros((TensorDtype)out->dtype, out->ndim, out->shape);
        if (!go) goto done;
        elem_set(go, j, 1.0);
        int rc = ag_grad(1, &out, &go, p->k, xs, true, false, true, g);
        tensor_decref(go);
        if (rc < 0) goto done;
        for (int i = 0; i < p->k; i++) {
            if (g[i])
                for (int64_t e = 0; e < xs[i]->numel; e++) ja[i][e * m + j] = elem_d(g[i], e);
            tensor_decref(g[i]);
            g[i] = NULL;
        }
    }
    /* numeric: central differences, outputs accumulated in double */
    result = 1;
    int n_pts = o->fourth_order ? 4 : 2;
    static const double offs[4] = {1, -1, 2, -2};
    for (int i = 0; i < p->k && result == 1; i++) {
        for (int64_t e = 0; e < xs[i]->numel && result == 1; e++) {
            double orig = elem_d(xs[i], e), h = o->eps, step[4];
            Tensor *f[4] = {0};
            bool prev = second ? ag_is_grad_enabled() : ag_set_grad_enabled(false);
            for (int q = 0; q < n_pts && result == 1; q++) {
                elem_set(xs[i], e, orig + offs[q] * h);
                step[q] = elem_d(xs[i], e) - orig;   /* the step the dtype could take */
                /* copies: an output may be a view of the input being perturbed */
                Tensor *fv = evaluate(p, second, false);
                f[q] = fv ? tensor_clone(fv) : NULL;
                tensor_decref(fv);
                if (!f[q]) result = -1;
            }
            elem_set(xs[i], e, orig);
            if (!second) ag_set_grad_enabled(prev);
            /* the stencil needs (nearly) the steps it asked for: a float32 input rounds them by
             * up to its ulp, so it takes the two-point quotient over the steps actually taken */
            bool even = n_pts == 4;
            for (int q = 0; q < n_pts && even; q++) even = fabs(step[q] - offs[q] * h) <= 1e-9 * h;
            for (int64_t j = 0; j < m && result == 1; j++) {
                double num;
                if (!even) {
                    num = (elem_d(f[0], j) - elem_d(f[1], j)) / (step[0] - step[1]);
                } else {
                    /* (8 (f(x+h) - f(x-h)) - (f(x+2h) - f(x-2h))) / 12h: error O(h^4) */
                    double hh = (step[0] - step[1] + (step[2] - step[3]) / 2) / 4;
                    num = (8 * (elem_d(f[0], j) - elem_d(f[1], j)) - (elem_d(f[2], j) - elem_d(f[3], j))) / (12 * hh);
                }
                double ana = ja[i][e * m + j];
                if (!(fabs(ana - num) <= o->atol + o->rtol * fabs(num))) {
                    fail_msg(o, second ? "second-order gradient" : "gradient", p->diff[i], e, j, ana, num);
                    result = 0;
                }
            }
            for (int q = 0; q < n_pts; q++) tensor_decref(f[q]);
        }
    }
done:
    if (ja)
        for (int i = 0; i < p->k; i++) free(ja[i]);
    free(ja);
    free(xs);
    free(g);
    tensor_decref(out);
    return result;
}

int ag_gradcheck(AgGradcheckFn fn, void *ctx, int n_inputs, Tensor *const *inputs, AgGradcheckOpts *opts) {
    AgGradcheckOpts defaults = {.eps = 1e-3, .atol = 1e-3, .rtol = 1e-2};
    if (!opts) opts = &defaults;
    if (opts->eps <= 0) opts->eps = 1e-3;
    opts->failure = NULL;
    Probe p = {.fn = fn, .ctx = ctx, .n = n_inputs, .inputs = inputs};
    p.diff = malloc(sizeof(int) * (size_t)(n_inputs ? n_inputs : 1));
    if (!p.diff) return tensor__oom();
    for (int i = 0; i < n_inputs; i++)
        if (inputs[i] && ag_requires_grad(inputs[i])) p.diff[p.k++] = i;
    bool prev = ag_set_grad_enabled(true);
    int r = check(&p, false, opts);
    if (r == 1 && opts->check_second_order && p.k > 0) {
        Tensor *out = fn(ctx, inputs);
        p.w = calloc((size_t)p.k, sizeof *p.w);
        if (out && p.w) {
            p.u = tensor_randn((TensorDtype)out->dtype, out->ndim, out->shape);
            for (int i = 0; i < p.k; i++) {
                Tensor *x = inputs[p.diff[i]];
                p.w[i] = tensor_randn((TensorDtype)x->dtype, x->ndim, x->shape);
            }
            r = check(&p, true, opts);
        } else {
            r = -1;
        }
        tensor_decref(out);
        tensor_decref(p.u);
        if (p.w)
            for (int i = 0; i < p.k; i++) tensor_decref(p.w[i]);
        free(p.w);
    }
    ag_set_grad_enabled(prev);
    free(p.diff);
    return r;
}
