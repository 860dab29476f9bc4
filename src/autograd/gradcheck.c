/* gradcheck.c — finite-difference checking of backward rules (torch.autograd.gradcheck for
 * float32): the analytic Jacobian from one backward per output element against central
 * differences accumulated in double; optionally the same for a gradient-of-gradient, which
 * exercises create_graph (rules written with differentiable ops). */
#include <math.h>
#include <stdio.h>

#include "src/autograd/autograd.h"

static float *elem(Tensor *t, int64_t i) {
    int64_t idx = i, off = t->offset;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (idx % t->shape[d]) * t->strides[d];
        idx /= t->shape[d];
    }
    return (float *)t->storage->data + off;
}

static double elem_d(const Tensor *t, int64_t i) { return *elem((Tensor *)t, i); }

static void fail_msg(AgGradcheckOpts *o, const char *what, int input, int64_t ie, int64_t oe, double a, double n) {
    if (o->failure) return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s mismatch: input %d element %lld, output element %lld: analytic %.6g, numeric %.6g", what, input,
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
    if (!s) s = tensor_zeros(TENSOR_FLOAT32, 0, NULL);
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
        Tensor *go = tensor_zeros(TENSOR_FLOAT32, out->ndim, out->shape);
        if (!go) goto done;
        tensor__f32(go)[j] = 1.0f;
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
    for (int i = 0; i < p->k && result == 1; i++) {
        for (int64_t e = 0; e < xs[i]->numel && result == 1; e++) {
            float *px = elem(xs[i], e), orig = *px;
            double h = o->eps;
            *px = (float)(orig + h);
            double hp = (double)*px - orig;
            bool prev = second ? ag_is_grad_enabled() : ag_set_grad_enabled(false);
            /* copies: an output may be a view of the input being perturbed */
            Tensor *fpv = evaluate(p, second, false), *fp = fpv ? tensor_clone(fpv) : NULL;
            tensor_decref(fpv);
            *px = (float)(orig - h);
            double hm = orig - (double)*px;
            Tensor *fmv = fp ? evaluate(p, second, false) : NULL, *fm = fmv ? tensor_clone(fmv) : NULL;
            tensor_decref(fmv);
            *px = orig;
            if (!second) ag_set_grad_enabled(prev);
            if (!fm) {
                tensor_decref(fp);
                result = -1;
                break;
            }
            for (int64_t j = 0; j < m; j++) {
                double num = (elem_d(fp, j) - elem_d(fm, j)) / (hp + hm);
                double ana = ja[i][e * m + j];
                if (!(fabs(ana - num) <= o->atol + o->rtol * fabs(num))) {
                    fail_msg(o, second ? "second-order gradient" : "gradient", p->diff[i], e, j, ana, num);
                    result = 0;
                    break;
                }
            }
            tensor_decref(fp);
            tensor_decref(fm);
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
            p.u = tensor_randn(TENSOR_FLOAT32, out->ndim, out->shape);
            for (int i = 0; i < p.k; i++) {
                Tensor *x = inputs[p.diff[i]];
                p.w[i] = tensor_randn(TENSOR_FLOAT32, x->ndim, x->shape);
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
