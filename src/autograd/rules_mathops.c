/* rules_mathops.c — backward rules of branch opsmath's ops (ember/ops.def's opsmath block):
 * lgamma, digamma, polygamma, xlogy; cumprod (through its backward kernel), logcumsumexp; the
 * LAPACK ops cholesky, solve_triangular, solve, inv, det, slogdet, svd, eigh.  Formulas are derivatives.yaml's and
 * FunctionsManual.cpp's (PyTorch 1.13), written with ag_ ops so compiled backward graphs record
 * them.  qr's backward covers m >= n, as PyTorch's does in its first case. */
#include <math.h>

#include "src/autograd/rules.h"

static Tensor *op_args(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a) { return ag_op1(op, in, n, a); }

static Tensor *polygamma_of(Tensor *x, int64_t order) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.scalar = tensor_scalar_i(order);
    return op_args(TENSOR_OP_POLYGAMMA, &x, 1, &a);
}

/* d lgamma = digamma */
BW(lgamma) {
    RULE_BEGIN;
    Tensor *x, *d;
    SAVED(0, x);
    TMP(d, ag_unary(TENSOR_OP_DIGAMMA, x));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* d digamma = polygamma(1) */
BW(digamma) {
    RULE_BEGIN;
    Tensor *x, *d;
    SAVED(0, x);
    TMP(d, polygamma_of(x, 1));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* d polygamma(n) = polygamma(n + 1) */
BW(polygamma) {
    RULE_BEGIN;
    Tensor *x, *d;
    SAVED(0, x);
    TMP(d, polygamma_of(x, n->args.scalar.kind == TENSOR_FLOAT32 ? (int64_t)n->args.scalar.f + 1 : n->args.scalar.i + 1));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* self: grad * xlogy(self != 0, other); other: grad * self / other */
BW(xlogy) {
    RULE_BEGIN;
    Tensor *x, *y;
    SAVED(0, x);
    SAVED(1, y);
    if (NEEDS(0)) {
        Tensor *nz, *l;
        TMP(nz, ag__const_scalar(TENSOR_OP_NE_SCALAR, x, tensor_scalar_i(0)));
        Tensor *in[2] = {nz, y};
        TMP(l, op_args(TENSOR_OP_XLOGY, in, 2, NULL));
        OUT(0, ag_mul(g[0], l));
    }
    if (NEEDS(1)) {
        Tensor *q;
        TMP(q, ag_mul(g[0], x));
        OUT(1, ag_div(q, y));
    }
    RULE_END;
}

static Tensor *flip_dim(Tensor *t, int64_t dim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.ints = &dim;
    a.n_ints = 1;
    return op_args(TENSOR_OP_FLIP, &t, 1, &a);
}

static Tensor *cumprod_of(Tensor *t, int64_t dim) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    return op_args(TENSOR_OP_CUMPROD, &t, 1, &a);
}

/* flip(cumsum(flip(w))) along dim: the sum of w from each position to the end */
static Tensor *reversed_cumsum(Tensor *w, int64_t dim) {
    Tensor *f = flip_dim(w, dim);
    if (!f) return NULL;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    Tensor *c = op_args(TENSOR_OP_CUMSUM, &f, 1, &a);
    tensor_decref(f);
    if (!c) return NULL;
    Tensor *r = flip_dim(c, dim);
    tensor_decref(c);
    return r;
}

/* cumprod's O(n^2) backward under create_graph with zeros in the input: grad_input[k] =
 * sum_{j >= k} grad[j] * prod_{i <= j, i != k} x_i, each slice from differentiable ops */
static Tensor *cumprod_slice_grad(Tensor *x, Tensor *g, const TensorMeta *m, int64_t dim, int64_t k) {
    Tmps s;
    s.n = 0;
    Tensor *r = NULL, *om = NULL;
    int64_t len = m->shape[dim];
    Tensor *pu = NULL, *pf = NULL, *xs;
    if (k > 0) {
        TMP(xs, ag_slice(x, dim, 0, k, 1));
        TMP(pu, ag_prod_dim(xs, dim, true));
    }
    if (k < len - 1) {
        TMP(xs, ag_slice(x, dim, k + 1, len, 1));
        TMP(pf, cumprod_of(xs, dim));
    }
    if (k == 0) {
        int64_t shape[TENSOR_MAX_DIMS];
        for (int i = 0; i < m->ndim; i++) shape[i] = i == dim ? 1 : m->shape[i];
        Tensor *ones;
        TMP(ones, ag__const_full((TensorDtype)m->dtype, m->ndim, shape, sc(1)));
        Tensor *parts[2] = {ones, pf};
        TMP(om, ag_cat(parts, 2, dim));
    } else if (k == len - 1) {
        om = pu;
    } else {
        Tensor *pe, *pp;
        TMP(pe, ag_expand(pu, pf->shape, pf->ndim));
        TMP(pp, ag_mul(pe, pf));
        Tensor *parts[2] = {pu, pp};
        TMP(om, ag_cat(parts, 2, dim));
    }
    Tensor *gs, *prod;
    TMP(gs, ag_slice(g, dim, k, len, 1));
    TMP(prod, ag_mul(gs, om));
    r = ag_sum_dims(prod, &dim, 1, false);
fail:
    tmps_free(&s);
    return r;
}

/* PyTorch's cumprod_backward: without zeros reversed_cumsum(result * grad) / input; with zeros
 * the exact O(n) kernel, or under create_graph the O(n^2) formula (whose derivative is the second
 * derivative of cumprod, which the kernel's is not).  Reads data (the zero test): DATA. */
BW(cumprod) {
    RULE_BEGIN;
    Tensor *x, *res, *gc;
    SAVED(0, x);
    SAVED(1, res);
    const TensorMeta *m = &n->in_meta[0];
    TensorDtype dt = (TensorDtype)m->dtype;
    int64_t dim = m->ndim ? tensor__wrap_dim(n->args.dim, m->ndim) : 0;
    if (dim < 0) goto fail;
    TMP(gc, ag_to_dtype(g[0], dt));
    if (tensor__shape_numel(m->ndim, m->shape) <= 1 || m->shape[dim] == 1) {
        OUT(0, (tensor_incref(gc), gc));
    } else if (!ag__has_zero(x)) {
        Tensor *w, *rc_;
        TMP(w, ag_mul(res, gc));
        TMP(rc_, reversed_cumsum(w, dim));
        Tensor *q;
        TMP(q, ag_div(rc_, x));
        OUT(0, ag_to_dtype(q, dt));
    } else if (!ag_is_grad_enabled()) {
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.dim = dim;
        Tensor *in[2] = {gc, x};
        OUT(0, op_args(TENSOR_OP_CUMPROD_BACKWARD, in, 2, &a));
    } else {
        Tensor *z;
        TMP(z, ag__zeros_meta(m));
        for (int64_t k = 0; k < m->shape[dim]; k++) {
            Tensor *sk = cumprod_slice_grad(x, gc, m, dim, k);
            if (!sk) goto fail;
            Tensor *v = ag_select(z, dim, k);
            int crc = v ? ag_copy_(v, sk) : -1;
            tensor_decref(v);
            tensor_decref(sk);
            if (crc < 0) goto fail;
        }
        OUT(0, (tensor_incref(z), z));
    }
    RULE_END;
}
/* flip(logcumsumexp(flip(t))) along dim */
static Tensor *rev_logcumsumexp(Tensor *t, int64_t dim) {
    Tensor *f = flip_dim(t, dim);
    if (!f) return NULL;
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dim = dim;
    Tensor *c = op_args(TENSOR_OP_LOGCUMSUMEXP, &f, 1, &a);
    tensor_decref(f);
    if (!c) return NULL;
    Tensor *r = flip_dim(c, dim);
    tensor_decref(c);
    return r;
}

/* FunctionsManual's logcumsumexp_backward: the positive and negative parts of grad each in log
 * space, exp(rev_logcumsumexp(log|g| - result) + self) */
BW(logcumsumexp) {
    RULE_BEGIN;
    Tensor *x, *res;
    SAVED(0, x);
    SAVED(1, res);
    const TensorMeta *m = &n->in_meta[0];
    if (m->ndim == 0) {
        tensor_incref(g[0]);
        OUT(0, g[0]);
    } else {
        int64_t dim = tensor__wrap_dim(n->args.dim, m->ndim);
        if (dim < 0) goto fail;
        double lowest = m->dtype == TENSOR_FLOAT64 ? -1.7976931348623157e308 : -3.4028234663852886e38;
        Tensor *parts[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            Tensor *mask, *ag, *lg, *lgm, *d, *c, *e;
            TMP(mask, ag__const_scalar(sgn == 0 ? TENSOR_OP_GT_SCALAR : TENSOR_OP_LT_SCALAR, g[0], tensor_scalar_i(0)));
            if (sgn == 0) {
                TMP(ag, ag_abs(g[0]));
            } else {
                TMP(ag, ag_neg(g[0]));
            }
            TMP(lg, ag_log(ag));
            Tensor *notmask;
            TMP(notmask, ag__const1(TENSOR_OP_LOGICAL_NOT, mask));
            TMP(lgm, ag_masked_fill(lg, notmask, sc(lowest)));
            TMP(d, ag_sub(lgm, res));
            TMP(c, rev_logcumsumexp(d, dim));
            if (!c) goto fail;
            Tensor *cs;
            TMP(cs, ag_add(c, x));
            TMP(e, ag_exp(cs));
            parts[sgn] = e;
        }
        OUT(0, ag_sub(parts[0], parts[1]));
    }
    RULE_END;
}

static Tensor *mH(Tensor *t) { return ag_transpose(t, -2, -1); }

static Tensor *tri(Tensor *t, bool lower, int64_t k) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.start = k;
    return op_args(lower ? TENSOR_OP_TRIL : TENSOR_OP_TRIU, &t, 1, &a);
}

static Tensor *solve_tri(Tensor *A, Tensor *B, bool upper, bool left, bool unit) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.has_min = upper;
    a.has_max = unit;
    a.accumulate = !left;
    Tensor *in[2] = {A, B};
    return op_args(TENSOR_OP_TRIANGULAR_SOLVE, in, 2, &a);
}

/* cholesky_backward (Murray 2016): L^-H Phi(L^H gL) L^-1, symmetrised */
BW(cholesky) {
    RULE_BEGIN;
    Tensor *L, *Lh, *gL, *p, *t, *lo, *loh, *s2, *h, *a1;
    SAVED(0, L);
    bool upper = n->args.has_max;
    if (upper) {
        Tensor *u = L;
        TMP(L, mH(u));
        TMP(gL, mH(g[0]));
    } else {
        gL = g[0];
    }
    TMP(Lh, mH(L));
    TMP(p, ag_matmul(Lh, gL));
    TMP(t, tri(p, true, 0));
    TMP(lo, tri(t, true, -1));
    TMP(loh, mH(lo));
    TMP(s2, ag_add(t, loh));
    TMP(h, ag_mul_scalar(s2, sc(0.5)));
    TMP(a1, solve_tri(Lh, h, true, true, false));
    OUT(0, solve_tri(L, a1, false, false, false));
    RULE_END;
}

/* gB = A^-H gX (solve with the other triangle); gA = -gB X^H (left) or -X^H gB, masked */
BW(solve_triangular) {
    RULE_BEGIN;
    Tensor *A, *X, *Ah, *gB;
    SAVED(0, A);
    SAVED(1, X);
    bool upper = n->args.has_min, unit = n->args.has_max, left = !n->args.accumulate;
    TMP(Ah, mH(A));
    TMP(gB, solve_tri(Ah, g[0], !upper, left, unit));
    if (NEEDS(0)) {
        Tensor *Xh, *p, *np;
        TMP(Xh, mH(X));
        TMP(p, left ? ag_matmul(gB, Xh) : ag_matmul(Xh, gB));
        TMP(np, ag_neg(p));
        OUT(0, upper ? tri(np, false, unit ? 1 : 0) : tri(np, true, unit ? -1 : 0));
    }
    if (NEEDS(1)) {
        tensor_incref(gB);
        OUT(1, gB);
    }
    RULE_END;
}

/* X = A^-1 B: gB = A^-H gX, gA = -gB X^H; X = B A^-1: gB = gX A^-H, gA = -X^H gB (FunctionsManual's
 * linalg_solve_backward).  gB is the same op with A^T for A (has_min), so it factors A^T as the
 * forward did, as ATen's lu_solve reuses the forward's LU: the same bits.  A vector right side is an
 * n x 1 matrix here.  For the backward's own op (has_min set) A^T is the matrix: gA transposes. */
BW(linalg_solve) {
    RULE_BEGIN;
    Tensor *A, *X, *gB;
    SAVED(0, A);
    SAVED(1, X);
    bool left = !n->args.accumulate, vec = X->ndim == A->ndim - 1;
    TensorOpArgs sa = n->args;
    sa.has_min = !sa.has_min;
    Tensor *in[2] = {A, g[0]};
    TMP(gB, op_args(TENSOR_OP_LINALG_SOLVE, in, 2, &sa));
    if (NEEDS(0)) {
        Tensor *Xm = X, *gm = gB, *Xh, *p;
        if (vec) {
            TMP(Xm, ag_unsqueeze(X, -1));
            TMP(gm, ag_unsqueeze(gB, -1));
        }
        TMP(Xh, mH(Xm));
        TMP(p, left ? ag_matmul(gm, Xh) : ag_matmul(Xh, gm));
        if (n->args.has_min) {
            Tensor *q = p;
            TMP(p, mH(q));
        }
        OUT(0, ag_neg(p));
    }
    if (NEEDS(1)) {
        tensor_incref(gB);
        OUT(1, gB);
    }
    RULE_END;
}

/* -A^-H g A^-H */
BW(inv) {
    RULE_BEGIN;
    Tensor *Ai, *Aih, *p, *q;
    SAVED(0, Ai);
    TMP(Aih, mH(Ai));
    TMP(p, ag_matmul(Aih, g[0]));
    TMP(q, ag_matmul(p, Aih));
    OUT(0, ag_neg(q));
    RULE_END;
}

static Tensor *inv_h(Tensor *A) {
    Tensor *i = op_args(TENSOR_OP_LINALG_INV, &A, 1, NULL);
    if (!i) return NULL;
    Tensor *r = mH(i);
    tensor_decref(i);
    return r;
}

static Tensor *unsq2(Tensor *t) {
    Tensor *a = ag_unsqueeze(t, -1);
    if (!a) return NULL;
    Tensor *b = ag_unsqueeze(a, -1);
    tensor_decref(a);
    return b;
}

/* (g det) A^-H (A invertible) */
BW(det) {
    RULE_BEGIN;
    Tensor *A, *d, *gd, *u, *ih;
    SAVED(0, A);
    SAVED(1, d);
    TMP(gd, ag_mul(g[0], d));
    TMP(u, unsq2(gd));
    TMP(ih, inv_h(A));
    OUT(0, ag_mul(u, ih));
    RULE_END;
}

/* g_logabsdet A^-H (the sign is not differentiable) */
BW(slogdet) {
    RULE_BEGIN;
    Tensor *A, *u, *ih;
    SAVED(0, A);
    if (!g[1]) {
        OUT(0, ag__zeros_meta(&n->in_meta[0]));
    } else {
        TMP(u, unsq2(g[1]));
        TMP(ih, inv_h(A));
        OUT(0, ag_mul(u, ih));
    }
    RULE_END;
}

/* U diag(gS) Vh from the reduced SVD (the signs of U and V cancel) */
BW(svdvals) {
    RULE_BEGIN;
    Tensor *A, *gs, *us, *out[3] = {NULL, NULL, NULL};
    SAVED(0, A);
    if (ag_op_run(TENSOR_OP_LINALG_SVD, &A, 1, NULL, out, 3) < 0) goto fail;
    for (int i = 0; i < 3; i++) s.t[s.n++] = out[i];
    TMP(gs, ag_unsqueeze(g[0], -2));
    TMP(us, ag_mul(out[0], gs));
    OUT(0, ag_matmul(us, out[2]));
    RULE_END;
}

/* ---- svd and eigh (FunctionsManual's svd_backward and linalg_eig_backward, the real case) ---------- */

SV(svd) {
    (void)in;
    (void)n_in;
    (void)n_out;
    for (int i = 0; i < 3; i++)
        if (ag__save(n, i, out[i], true) < 0) return -1;
    return 0;
}

/* the k x k identity (a constant: it has no history) */
static Tensor *eye_k(int64_t k, TensorDtype dt) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.start = k;
    a.end = -1;
    a.dtype = dt;
    return ag__const(TENSOR_OP_EYE, NULL, 0, &a);
}

/* E_jk = x_k - x_j off the diagonal, 1 on it (ATen fills the diagonal; adding I is exact there
 * and leaves the rest unchanged) */
static Tensor *gap_matrix(Tensor *x) {
    Tmps s;
    s.n = 0;
    Tensor *r = NULL, *a, *b, *d, *e;
    TMP(a, ag_unsqueeze(x, -2));
    TMP(b, ag_unsqueeze(x, -1));
    TMP(d, ag_sub(a, b));
    TMP(e, eye_k(x->shape[x->ndim - 1], (TensorDtype)x->dtype));
    r = ag_add(d, e);
fail:
    tmps_free(&s);
    return r;
}

/* X - X^H */
static Tensor *skew(Tensor *x) {
    Tensor *h = mH(x);
    if (!h) return NULL;
    Tensor *r = ag_sub(x, h);
    tensor_decref(h);
    return r;
}

/* diag_embed(v): v (*, k) -> (*, k, k) */
static Tensor *diag_of(Tensor *v) {
    Tensor *u = ag_unsqueeze(v, -1);
    Tensor *e = u ? eye_k(v->shape[v->ndim - 1], (TensorDtype)v->dtype) : NULL;
    Tensor *r = e ? ag_mul(u, e) : NULL;
    tensor_decref(u);
    tensor_decref(e);
    return r;
}

/* the k x k middle of svd_backward: (skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS) */
static Tensor *svd_middle(Tensor *gU, Tensor *gS, Tensor *gVh, Tensor *U, Tensor *S, Tensor *Vh) {
    Tmps s;
    s.n = 0;
    Tensor *r = NULL, *ret = NULL, *S2, *E, *Sr, *Sc, *UhgU = NULL, *VhgV = NULL, *t;
    TMP(S2, ag_mul(S, S));
    TMP(E, gap_matrix(S2));
    TMP(Sr, ag_unsqueeze(S, -2));
    TMP(Sc, ag_unsqueeze(S, -1));
    if (gU) {
        Tensor *Uh;
        TMP(Uh, mH(U));
        TMP(t, ag_matmul(Uh, gU));
        TMP(UhgU, skew(t));
    }
    if (gVh) {
        Tensor *gV;
        TMP(gV, mH(gVh));
        TMP(t, ag_matmul(Vh, gV));
        TMP(VhgV, skew(t));
    }
    if (UhgU && VhgV) {
        Tensor *p, *q, *pq;
        TMP(p, ag_mul(UhgU, Sr));
        TMP(q, ag_mul(Sc, VhgV));
        TMP(pq, ag_add(p, q));
        TMP(ret, ag_div(pq, E));
    } else if (UhgU) {
        TMP(t, ag_div(UhgU, E));
        TMP(ret, ag_mul(t, Sr));
    } else {
        TMP(t, ag_div(VhgV, E));
        TMP(ret, ag_mul(Sc, t));
    }
    if (gS) {
        Tensor *d;
        TMP(d, diag_of(gS));
        r = ag_add(ret, d);
    } else {
        tensor_incref(ret);
        r = ret;
    }
fail:
    tmps_free(&s);
    return r;
}

/* gA for a full-rank A with distinct singular values (svd_backward); full_matrices narrows U, Vh
 * and their gradients to the k singular vectors first, as derivatives.yaml does */
BW(svd) {
    RULE_BEGIN;
    Tensor *U, *S, *Vh, *gU = g[0], *gS = g[1], *gVh = g[2], *mid, *a, *b, *c;
    SAVED(0, U);
    SAVED(1, S);
    SAVED(2, Vh);
    const TensorMeta *m = &n->in_meta[0];
    int64_t rows = m->shape[m->ndim - 2], cols = m->shape[m->ndim - 1], k = rows < cols ? rows : cols;
    if (n->args.has_max) {
        TMP(U, ag_narrow(U, -1, 0, k));
        TMP(Vh, ag_narrow(Vh, -2, 0, k));
        if (gU) TMP(gU, ag_narrow(gU, -1, 0, k));
        if (gVh) TMP(gVh, ag_narrow(gVh, -2, 0, k));
    }
    if (!gU && !gVh) {
        /* svdvals' shortcut: U diag(gS) Vh */
        if (rows >= cols) {
            TMP(a, ag_unsqueeze(gS, -1));
            TMP(b, ag_mul(a, Vh));
            OUT(0, ag_matmul(U, b));
        } else {
            TMP(a, ag_unsqueeze(gS, -2));
            TMP(b, ag_mul(U, a));
            OUT(0, ag_matmul(b, Vh));
        }
    } else {
        TMP(mid, svd_middle(gU, gS, gVh, U, S, Vh));
        if (rows > cols && gU) {
            /* [U mid + (I - U U^H) gU S^-1] Vh */
            Tensor *Sr, *gUS, *Uh, *p, *q, *r1;
            TMP(a, ag_matmul(U, mid));
            TMP(Sr, ag_unsqueeze(S, -2));
            TMP(gUS, ag_div(gU, Sr));
            TMP(Uh, mH(U));
            TMP(p, ag_matmul(Uh, gUS));
            TMP(q, ag_matmul(U, p));
            TMP(b, ag_add(a, gUS));
            TMP(r1, ag_sub(b, q));
            OUT(0, ag_matmul(r1, Vh));
        } else if (rows < cols && gVh) {
            /* U [mid Vh + S^-1 gVh (I - V Vh)] */
            Tensor *Sc, *SgV, *V, *p, *q, *r1;
            TMP(a, ag_matmul(mid, Vh));
            TMP(Sc, ag_unsqueeze(S, -1));
            TMP(SgV, ag_div(gVh, Sc));
            TMP(V, mH(Vh));
            TMP(p, ag_matmul(SgV, V));
            TMP(q, ag_matmul(p, Vh));
            TMP(b, ag_add(a, SgV));
            TMP(r1, ag_sub(b, q));
            OUT(0, ag_matmul(U, r1));
        } else if (rows >= cols) {
            TMP(c, ag_matmul(mid, Vh));
            OUT(0, ag_matmul(U, c));
        } else {
            TMP(c, ag_matmul(U, mid));
            OUT(0, ag_matmul(c, Vh));
        }
    }
    RULE_END;
}

SV(eigh) {
    (void)in;
    (void)n_in;
    (void)n_out;
    if (ag__save(n, 0, out[0], true) < 0) return -1;
    return ag__save(n, 1, out[1], true);
}

/* linalg_eig_backward, Hermitian: gV only through its skew part, gA = V (skew(V^H gV) / 2E +
 * diag(gL)) V^H; eigvalsh's gL alone: V diag(gL) V^H */
BW(eigh) {
    RULE_BEGIN;
    Tensor *L, *V, *Vh, *a, *b;
    SAVED(0, L);
    SAVED(1, V);
    if (!n->args.has_max) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "linalg_eigh_backward: the eigenvectors were not computed");
        goto fail;
    }
    TMP(Vh, mH(V));
    if (!g[1]) {
        TMP(a, ag_unsqueeze(g[0], -2));
        TMP(b, ag_mul(V, a));
        OUT(0, ag_matmul(b, Vh));
    } else {
        Tensor *VhgV, *sk, *half, *E, *ret, *c;
        TMP(VhgV, ag_matmul(Vh, g[1]));
        TMP(sk, skew(VhgV));
        TMP(half, ag_mul_scalar(sk, sc(0.5)));
        TMP(E, gap_matrix(L));
        TMP(ret, ag_div(half, E));
        if (g[0]) {
            Tensor *d;
            TMP(d, diag_of(g[0]));
            TMP(ret, ag_add(ret, d));
        }
        TMP(c, ag_matmul(ret, Vh));
        OUT(0, ag_matmul(V, c));
    }
    RULE_END;
}

/* pinv_backward (FunctionsManual): with P = A^+ and G = g^H, for m <= n
 *   gA = -(P K)^H + K P^H - A P K P^H + P^H P (G - K A),  K = G P
 * and for m > n
 *   gA = -(K P)^H + (G - A K) P P^H + P^H K - P^H K P A,  K = P G */
BW(pinv) {
    RULE_BEGIN;
    Tensor *A, *P, *Ph, *G, *K, *t1, *t2, *t3, *t4, *r;
    SAVED(0, A);
    SAVED(1, P);
    int64_t m = A->shape[A->ndim - 2], nn = A->shape[A->ndim - 1];
    TMP(Ph, mH(P));
    TMP(G, mH(g[0]));
    if (m <= nn) {
        Tensor *KPh, *PK, *AP, *PhP, *KA, *d;
        TMP(K, ag_matmul(G, P));
        TMP(KPh, ag_matmul(K, Ph));
        TMP(PK, ag_matmul(P, K));
        TMP(t1, mH(PK));
        TMP(AP, ag_matmul(A, P));
        TMP(t2, ag_matmul(AP, KPh));
        TMP(PhP, ag_matmul(Ph, P));
        TMP(KA, ag_matmul(K, A));
        TMP(d, ag_sub(G, KA));
        TMP(t3, ag_matmul(PhP, d));
        TMP(t4, ag_sub(KPh, t1));   /* -(P K)^H + K P^H */
        TMP(r, ag_sub(t4, t2));
        OUT(0, ag_add(r, t3));
    } else {
        Tensor *KP, *AK, *d, *dP, *PhK, *PhKP;
        TMP(K, ag_matmul(P, G));
        TMP(PhK, ag_matmul(Ph, K));
        TMP(KP, ag_matmul(K, P));
        TMP(t1, mH(KP));
        TMP(AK, ag_matmul(A, K));
        TMP(d, ag_sub(G, AK));
        TMP(dP, ag_matmul(d, P));
        TMP(t2, ag_matmul(dP, Ph));
        TMP(PhKP, ag_matmul(PhK, P));
        TMP(t3, ag_matmul(PhKP, A));
        TMP(t4, ag_sub(t2, t1));   /* -(K P)^H + (G - A K) P P^H */
        TMP(r, ag_add(t4, PhK));
        OUT(0, ag_sub(r, t3));
    }
    RULE_END;
}

SV(qr) {
    (void)in;
    (void)n_in;
    (void)n_out;
    if (ag__save(n, 0, out[0], true) < 0) return -1;
    return ag__save(n, 1, out[1], true);
}

/* linalg_qr_backward for m >= n (reduced, or complete when square): with M = gR R^H - Q^H gQ,
 * gA = (gQ + Q copyltu(triu(M))) R^-H, copyltu mirroring the upper triangle into the lower */
BW(qr) {
    RULE_BEGIN;
    Tensor *Q, *Rm, *M = NULL, *T, *U1, *U1h, *S, *QS, *gA, *Rh;
    SAVED(0, Q);
    SAVED(1, Rm);
    const TensorMeta *m = &n->in_meta[0];
    int64_t rows = m->shape[m->ndim - 2], cols = m->shape[m->ndim - 1];
    if (n->args.step == 3) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "The derivative of linalg.qr depends on Q, which is not computed when "
                         "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
        goto fail;
    }
    if (rows < cols) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "the derivative of linalg.qr for inputs with more columns than rows "
                         "is not implemented in Ember");
        goto fail;
    }
    if (n->args.step == 2 && rows > cols) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
        goto fail;
    }
    if (g[1]) {
        Tensor *Rh0;
        TMP(Rh0, mH(Rm));
        TMP(M, ag_matmul(g[1], Rh0));
    }
    if (g[0]) {
        Tensor *Qh, *QhgQ;
        TMP(Qh, mH(Q));
        TMP(QhgQ, ag_matmul(Qh, g[0]));
        if (M) {
            TMP(M, ag_sub(M, QhgQ));
        } else {
            TMP(M, ag_neg(QhgQ));
        }
    }
    if (!M) {
        OUT(0, ag__zeros_meta(m));
    } else {
        TMP(T, tri(M, false, 0));
        TMP(U1, tri(M, false, 1));
        TMP(U1h, mH(U1));
        TMP(S, ag_add(T, U1h));
        TMP(QS, ag_matmul(Q, S));
        if (g[0]) {
            TMP(gA, ag_add(QS, g[0]));
        } else {
            gA = QS;
        }
        TMP(Rh, mH(Rm));
        OUT(0, solve_tri(Rh, gA, false, false, false));
    }
    RULE_END;
}

/* FunctionsManual's norm_backward (linalg_vector_norm and torch.norm's aten::norm): where the norm is zero the gradient is 0
 * (p >= 1), where ATen masks it, rather than the 0/0 of differentiating sqrt(sum(x^2)) */
BW(vector_norm) {
    RULE_BEGIN;
    Tensor *x, *res, *gu, *nu;
    SAVED(0, x);
    SAVED(1, res);
    const TensorMeta *m = &n->in_meta[0];
    double p = n->args.scalar.f;
    const int64_t *dims = n->args.ints;
    int nd = n->args.n_ints;
    TMP(gu, ag__unsqueeze_reduced(g[0], m, dims, nd, n->args.keepdim));
    TMP(nu, ag__unsqueeze_reduced(res, m, dims, nd, n->args.keepdim));
    if (p == 0) {
        /* ATen's norm_backward returns an undefined gradient: x.grad stays None */
    } else if (p == 1) {
        Tensor *sg;
        TMP(sg, ag_sign(x));
        OUT(0, ag_mul(sg, gu));
    } else if (p == 2) {
        Tensor *q, *zero, *qm;
        TMP(q, ag_div(x, nu));
        TMP(zero, ag__const_scalar(TENSOR_OP_EQ_SCALAR, nu, tensor_scalar_i(0)));
        TMP(qm, ag_masked_fill(q, zero, sc(0)));
        OUT(0, ag_mul(gu, qm));
    } else if (isinf(p)) {
        /* the gradient is shared between the elements equal to the norm (or NaN) */
        Tensor *ab, *eq, *nan, *mask, *cnt, *gd, *mf, *sg, *t;
        TMP(ab, ag__const1(TENSOR_OP_ABS, x));
        TMP(eq, ag__const2(TENSOR_OP_EQ, ab, nu));
        TMP(nan, ag__const2(TENSOR_OP_NE, ab, ab));
        TMP(mask, ag__const2(TENSOR_OP_LOGICAL_OR, eq, nan));
        TensorOpArgs sa = TENSOR_OP_ARGS_INIT;
        sa.ints = nd ? dims : NULL;
        sa.n_ints = nd;
        sa.keepdim = true;
        TMP(cnt, ag__const(TENSOR_OP_SUM_DIM, &mask, 1, &sa));
        TMP(gd, ag_div(gu, cnt));
        TMP(mf, ag_mul(gd, mask));
        TMP(sg, ag_sign(x));
        TMP(t, ag_mul(sg, mf));
        OUT(0, (tensor_incref(t), t));
    } else {
        Tensor *ab, *pw, *scaled, *np, *sv, *zero, *svm;
        TMP(ab, ag_abs(x));
        if (p < 1) {
            Tensor *sg, *xz, *pwm, *a1, *np1;
            TMP(sg, ag_sign(x));
            TMP(pw, ag_pow_scalar(ab, sc(p - 1)));
            TMP(xz, ag__const_scalar(TENSOR_OP_EQ_SCALAR, x, tensor_scalar_i(0)));
            TMP(pwm, ag_masked_fill(pw, xz, sc(0)));
            TMP(scaled, ag_mul(sg, pwm));
            TMP(a1, ag_mul(scaled, gu));
            TMP(np1, ag_pow_scalar(nu, sc(1 - p)));
            OUT(0, ag_mul(a1, np1));
        } else {
            if (p < 2) {
                Tensor *sg;
                TMP(sg, ag_sign(x));
                TMP(pw, ag_pow_scalar(ab, sc(p - 1)));
                TMP(scaled, ag_mul(sg, pw));
            } else {
                TMP(pw, ag_pow_scalar(ab, sc(p - 2)));
                TMP(scaled, ag_mul(x, pw));
            }
            TMP(np, ag_pow_scalar(nu, sc(p - 1)));
            TMP(sv, ag_div(gu, np));
            TMP(zero, ag__const_scalar(TENSOR_OP_EQ_SCALAR, nu, tensor_scalar_i(0)));
            TMP(svm, ag_masked_fill(sv, zero, sc(0)));
            OUT(0, ag_mul(scaled, svm));
        }
    }
    RULE_END;
}
