/* rules_pointwise.c — backward rules of the elementwise ops (unary, binary, scalar forms,
 * where, masked_fill, copy_ and the in-place forms), following tools/autograd/derivatives.yaml.
 * Broadcast gradients are returned at the broadcast shape: the engine sums them to each
 * input's shape (PyTorch's validate_outputs). Masks are constants built with tensor_ ops. */
#include <math.h>

#include "src/autograd/rules.h"
#include "src/tensor/vmath.h"   /* tensor__vm_sleef: the CPU runs ATen's FMA-built kernels */

/* ---- saves --------------------------------------------------------------------------------------- */

SV(mul) {
    (void)n_in;
    (void)out;
    (void)n_out;
    if (edge_valid(n, 1) && ag__save(n, 0, in[0], false) < 0) return -1;
    if (edge_valid(n, 0) && ag__save(n, 1, in[1], false) < 0) return -1;
    return 0;
}

SV(div) {
    (void)n_in;
    (void)out;
    (void)n_out;
    if (edge_valid(n, 1) && ag__save(n, 0, in[0], false) < 0) return -1;
    return ag__save(n, 1, in[1], false);
}

SV(pow) {
    (void)n_in;
    (void)n_out;
    if (ag__save(n, 0, in[0], false) < 0 || ag__save(n, 1, in[1], false) < 0) return -1;
    return ag__save(n, 2, out[0], true);
}

/* in-place forms save before the kernel: the old value of self, cloned, when a gradient needs it.
 * The clone is recorded (as PyTorch's original_self = self.clone()), so double backward flows. */
static int save_clone(AgNode *n, int slot, Tensor *t) {
    Tensor *c = ag_clone(t);
    if (!c) return -1;
    int rc = ag__save(n, slot, c, false);
    tensor_decref(c);
    return rc;
}

SV(mul_) {
    (void)n_in;
    (void)out;
    (void)n_out;
    if (edge_valid(n, 1) && save_clone(n, 0, in[0]) < 0) return -1;
    if (edge_valid(n, 0) && ag__save(n, 1, in[1], false) < 0) return -1;
    return 0;
}

SV(div_) {
    (void)n_in;
    (void)out;
    (void)n_out;
    if (edge_valid(n, 1) && save_clone(n, 0, in[0]) < 0) return -1;
    return ag__save(n, 1, in[1], false);
}

SV(clamp_) {
    (void)n_in;
    (void)out;
    (void)n_out;
    return save_clone(n, 0, in[0]);
}

SV(masked_fill_) {
    (void)n_in;
    (void)out;
    (void)n_out;
    return ag__save(n, 0, in[1], false);
}

SV(where) {
    (void)n_in;
    (void)out;
    (void)n_out;
    return ag__save(n, 0, in[0], false);
}

/* ---- unary ---------------------------------------------------------------------------------------- */

static Tensor *ref(Tensor *t) {
    tensor_incref(t);
    return t;
}

BW(neg) {
    OUT(0, ag_neg(g[0]));
    return 0;
fail:
    return -1;
}

BW(identity) {
    gi[0] = ref(g[0]);
    return 0;
}

BW(to_dtype) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.dtype = n->in_meta ? n->in_meta[0].dtype : (TensorDtype)g[0]->dtype;
    OUT(0, ag_op1(TENSOR_OP_TO_DTYPE, (Tensor *const *)&g[0], 1, &a));
    return 0;
fail:
    return -1;
}

BW(zero_like) {
    OUT(0, ag__const1(TENSOR_OP_ZEROS_LIKE, g[0]));
    return 0;
fail:
    return -1;
}

BW(abs) {
    RULE_BEGIN;
    Tensor *x, *sg;
    SAVED(0, x);
    TMP(sg, ag__const1(TENSOR_OP_SIGN, x));
    OUT(0, ag_mul(g[0], sg));
    RULE_END;
}

BW(exp) {
    RULE_BEGIN;
    Tensor *r;
    SAVED(0, r);
    OUT(0, ag_mul(g[0], r));
    RULE_END;
}

BW(log) {
    RULE_BEGIN;
    Tensor *x;
    SAVED(0, x);
    OUT(0, ag_div(g[0], x));
    RULE_END;
}

BW(sqrt) {
    RULE_BEGIN;
    Tensor *r, *t;
    SAVED(0, r);
    TMP(t, ag_mul_scalar(r, sc(2)));
    OUT(0, ag_div(g[0], t));
    RULE_END;
}

BW(rsqrt) {
    RULE_BEGIN;
    Tensor *r, *r3, *t;
    SAVED(0, r);
    TMP(r3, ag_pow_scalar(r, tensor_scalar_i(3)));
    TMP(t, ag_mul(g[0], r3));
    OUT(0, ag_mul_scalar(t, sc(-0.5)));
    RULE_END;
}

/* ATen's AVX2 kernels are built with FMA and GCC contracts a product feeding an add (see
 * src/tensor/aten_order.h): silu_backward's `1 + x * (1 - s)` computes in one rounding (tanh_backward's
 * `a * (1 - b * b)` likewise: its own op, TANH_BACKWARD, pwexpr.h pw_one_minus_sq).  For float32 that one rounding is reproduced by
 * computing the product and the sum in float64, where a product of two floats is exact (so only
 * a double rounding on an exact float midpoint, ~1 in 2**29, could differ), then rounding to
 * float32; with ag_ ops only, so the rule stays differentiable (double backward, compiled
 * backward).  float64 has no wider type here and rounds twice (PyTorch's last bit may differ:
 * tests/trace/footguns); on CPUs without AVX2 + FMA PyTorch's DEFAULT kernels round twice too. */
static bool fused_in_f64(const Tensor *t) { return tensor__vm_sleef && tensor_dtype(t) == TENSOR_FLOAT32; }

/* c + a * b with ATen's contraction where fused_in_f64 */
static Tensor *ag_fused_mul_add_scalar(Tensor *a, Tensor *b, TensorScalar c) {
    if (!fused_in_f64(a)) {
        Tensor *p = ag_mul(a, b);
        if (!p) return NULL;
        Tensor *r = ag_add_scalar(p, c);
        tensor_decref(p);
        return r;
    }
    Tensor *a64 = NULL, *b64 = NULL, *p = NULL, *r64 = NULL, *r = NULL;
    if ((a64 = ag_to_dtype(a, TENSOR_FLOAT64)) && (b64 = a == b ? (tensor_incref(a64), a64) : ag_to_dtype(b, TENSOR_FLOAT64)) &&
        (p = ag_mul(a64, b64)) && (r64 = ag_add_scalar(p, c)))
        r = ag_to_dtype(r64, TENSOR_FLOAT32);
    tensor_decref(a64);
    tensor_decref(b64);
    tensor_decref(p);
    tensor_decref(r64);
    return r;
}

/* tanh_backward(grad, y) = grad * (1 - y * y), ATen's op (TANH_BACKWARD: the parenthesis rounded
 * once on an FMA CPU, float64 included) */
BW(tanh) {
    RULE_BEGIN;
    Tensor *r;
    SAVED(0, r);
    OUT(0, ag_tanh_backward(g[0], r));
    RULE_END;
}

/* derivatives.yaml: grad_output: tanh_backward(grad, output); output: grad * (-2 * output * grad_output) */
BW(tanh_backward) {
    RULE_BEGIN;
    Tensor *go, *y;
    SAVED(0, go);
    SAVED(1, y);
    if (NEEDS(0)) OUT(0, ag_tanh_backward(g[0], y));
    if (NEEDS(1)) {
        Tensor *y2, *t;
        TMP(y2, ag_mul_scalar(y, sc(-2)));
        TMP(t, ag_mul(y2, go));
        OUT(1, ag_mul(g[0], t));
    }
    RULE_END;
}

/* sigmoid's backward multiplies in ATen's order, grad * (1 - y) * y */
BW(sigmoid) {
    RULE_BEGIN;
    Tensor *r, *om, *d;
    SAVED(0, r);
    TMP(om, ag_rsub_scalar(r, tensor_scalar_i(1)));
    TMP(d, ag_mul(g[0], om));
    OUT(0, ag_mul(d, r));
    RULE_END;
}

/* ATen's threshold_backward(grad, result, 0): zero where the result is <= 0 (NaN passes the
 * gradient), one pass where a le mask and a masked_fill made two and a bool temporary */
BW(relu) {
    RULE_BEGIN;
    Tensor *r;
    SAVED(0, r);
    OUT(0, ag_threshold_backward(g[0], r, tensor_scalar_i(0)));
    RULE_END;
}

/* linear in grad_output: the same mask on the incoming gradient; self's mask has no derivative */
BW(threshold_backward) {
    RULE_BEGIN;
    Tensor *r;
    SAVED(0, r);
    OUT(0, ag_threshold_backward(g[0], r, n->args.scalar));
    RULE_END;
}

BW(erf) {
    RULE_BEGIN;
    Tensor *x, *x2, *nx2, *e;
    SAVED(0, x);
    TMP(x2, ag_mul(x, x));
    TMP(nx2, ag_neg(x2));
    TMP(e, ag_exp(nx2));
    Tensor *d;
    TMP(d, ag_mul_scalar(e, sc(1.1283791670955126))); /* 2/sqrt(pi) */
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* 0.5 * sqrt(pi) * exp(erfinv(x)^2) * grad, as derivatives.yaml writes it */
BW(erfinv) {
    RULE_BEGIN;
    Tensor *x, *r, *r2, *e, *d;
    SAVED(0, x);
    TMP(r, ag_unary(TENSOR_OP_ERFINV, x));
    TMP(r2, ag_pow_scalar(r, tensor_scalar_i(2)));
    TMP(e, ag_exp(r2));
    TMP(d, ag_mul_scalar(e, sc(0.88622692545275801)));   /* 0.5 * sqrt(pi) */
    OUT(0, ag_mul(d, g[0]));
    RULE_END;
}

/* grad / (x (1 - x)) where x lies in [eps, 1 - eps] and 0 elsewhere; without eps, in [0, 1] and
 * NaN elsewhere (derivatives.yaml's logit_backward) */
BW(logit) {
    RULE_BEGIN;
    Tensor *x, *om, *den, *q, *below, *above, *out;
    SAVED(0, x);
    bool eps = n->args.has_min;
    double lo = eps ? scalar_value(n->args.scalar) : 0.0, hi = eps ? 1.0 - lo : 1.0;
    TMP(om, ag_rsub_scalar(x, tensor_scalar_i(1)));
    TMP(den, ag_mul(x, om));
    TMP(q, ag_div(g[0], den));
    TMP(below, ag__const_scalar(TENSOR_OP_LT_SCALAR, x, sc(lo)));
    TMP(above, ag__const_scalar(TENSOR_OP_GT_SCALAR, x, sc(hi)));
    TMP(out, ag__const2(TENSOR_OP_LOGICAL_OR, below, above));
    OUT(0, ag_masked_fill(q, out, eps ? tensor_scalar_i(0) : sc(NAN)));
    RULE_END;
}

BW(gelu) {
    RULE_BEGIN;
    Tensor *x, *x2, *d;
    SAVED(0, x);
    if (n->args.approximate == TENSOR_GELU_ONEDNN && !ag_is_grad_enabled()) {
        /* oneDNN's eltwise backward: its derivative times the gradient.  A constant of the rule,
         * so under create_graph (grad mode on) the differentiable erf form below is used. */
        TensorOpArgs a = TENSOR_OP_ARGS_INIT;
        a.approximate = TENSOR_GELU_ONEDNN_GRAD;
        TMP(d, ag__const(TENSOR_OP_GELU, &x, 1, &a));
        OUT(0, ag_mul(g[0], d));
        goto done;
    }
    TMP(x2, ag_mul(x, x));
    if (n->args.approximate != TENSOR_GELU_TANH) {
        /* cdf(x) + x * pdf(x) */
        Tensor *xs, *e, *e1, *cdf, *h, *ex, *pdf, *xp;
        TMP(xs, ag_mul_scalar(x, sc(0.7071067811865476)));
        TMP(e, ag_unary(TENSOR_OP_ERF, xs));
        TMP(e1, ag_add_scalar(e, tensor_scalar_i(1)));
        TMP(cdf, ag_mul_scalar(e1, sc(0.5)));
        TMP(h, ag_mul_scalar(x2, sc(-0.5)));
        TMP(ex, ag_exp(h));
        TMP(pdf, ag_mul_scalar(ex, sc(0.3989422804014327))); /* 1/sqrt(2 pi) */
        TMP(xp, ag_mul(x, pdf));
        TMP(d, ag_add(cdf, xp));
    } else {
        const double k = 0.7978845608028654, c = 0.044715;
        Tensor *x3, *cx3, *u, *inner, *t, *left, *right, *left_d, *t2, *tanh_d, *a, *a1, *inner_d, *lt, *right_d;
        TMP(x3, ag_mul(x2, x));
        TMP(cx3, ag_mul_scalar(x3, sc(c)));
        TMP(u, ag_add(x, cx3));
        TMP(inner, ag_mul_scalar(u, sc(k)));
        TMP(t, ag_tanh(inner));
        TMP(left, ag_mul_scalar(x, sc(0.5)));
        TMP(right, ag_add_scalar(t, tensor_scalar_i(1)));
        TMP(left_d, ag_mul_scalar(right, sc(0.5)));
        TMP(t2, ag_mul(t, t));
        TMP(tanh_d, ag_rsub_scalar(t2, tensor_scalar_i(1)));
        TMP(a, ag_mul_scalar(x2, sc(3 * c)));
        TMP(a1, ag_add_scalar(a, tensor_scalar_i(1)));
        TMP(inner_d, ag_mul_scalar(a1, sc(k)));
        TMP(lt, ag_mul(left, tanh_d));
        TMP(right_d, ag_mul(lt, inner_d));
        TMP(d, ag_add(left_d, right_d));
    }
    OUT(0, ag_mul(g[0], d));
done:
    RULE_END;
}

/* silu_backward's order: (grad * s) * (1 + x * (1 - s)), s = sigmoid(x), the last factor fused */
BW(silu) {
    RULE_BEGIN;
    Tensor *x, *sg, *om, *t, *d;
    SAVED(0, x);
    TMP(sg, ag_sigmoid(x));
    TMP(om, ag_rsub_scalar(sg, tensor_scalar_i(1)));
    TMP(t, ag_fused_mul_add_scalar(x, om, tensor_scalar_i(1)));
    TMP(d, ag_mul(g[0], sg));
    OUT(0, ag_mul(d, t));
    RULE_END;
}

/* grad * (tanh(sp) + x * sigmoid(x) * (1 - tanh(sp)^2)) with sp = softplus(x) = log(1 + exp x):
 * PyTorch's infinitely differentiable mish backward */
BW(mish) {
    RULE_BEGIN;
    Tensor *x, *sg, *e, *e1, *sp, *t, *t2, *omt, *xs, *xst, *d;
    SAVED(0, x);
    TMP(sg, ag_sigmoid(x));
    TMP(e, ag_exp(x));
    TMP(e1, ag_add_scalar(e, tensor_scalar_i(1)));
    TMP(sp, ag_log(e1));
    TMP(t, ag_tanh(sp));
    TMP(t2, ag_mul(t, t));
    TMP(omt, ag_rsub_scalar(t2, sc(1.0)));
    TMP(xs, ag_mul(x, sg));
    TMP(xst, ag_mul(xs, omt));
    TMP(d, ag_add(t, xst));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

BW(leaky_relu) {
    RULE_BEGIN;
    Tensor *x, *pos, *slope, *f;
    SAVED(0, x);
    TMP(pos, ag__const_scalar(TENSOR_OP_GT_SCALAR, x, tensor_scalar_i(0)));
    TMP(slope, ag__const_scalar(TENSOR_OP_FULL_LIKE, x, n->args.scalar));
    TMP(f, ag__const_masked_fill(slope, pos, tensor_scalar_i(1)));
    OUT(0, ag_mul(g[0], f));
    RULE_END;
}

BW(sin) {
    RULE_BEGIN;
    Tensor *x, *c;
    SAVED(0, x);
    TMP(c, ag_unary(TENSOR_OP_COS, x));
    OUT(0, ag_mul(g[0], c));
    RULE_END;
}

BW(cos) {
    RULE_BEGIN;
    Tensor *x, *sn, *t;
    SAVED(0, x);
    TMP(sn, ag_unary(TENSOR_OP_SIN, x));
    TMP(t, ag_mul(g[0], sn));
    OUT(0, ag_neg(t));
    RULE_END;
}

BW(reciprocal) {
    RULE_BEGIN;
    Tensor *r, *r2, *t;
    SAVED(0, r);
    TMP(r2, ag_mul(r, r));
    TMP(t, ag_mul(g[0], r2));
    OUT(0, ag_neg(t));
    RULE_END;
}

/* the gradient passes where min <= x <= max */
BW(clamp) {
    RULE_BEGIN;
    Tensor *x, *keep = NULL, *drop;
    SAVED(0, x);
    if (n->args.has_min) TMP(keep, ag__const_scalar(TENSOR_OP_GE_SCALAR, x, n->args.scalar));
    if (n->args.has_max) {
        Tensor *m;
        TMP(m, ag__const_scalar(TENSOR_OP_LE_SCALAR, x, n->args.scalar2));
        if (keep) {
            TMP(keep, ag__const2(TENSOR_OP_LOGICAL_AND, keep, m));
        } else {
            keep = m;
        }
    }
    if (!keep) {
        gi[0] = ref(g[0]);
    } else {
        TMP(drop, ag__const1(TENSOR_OP_LOGICAL_NOT, keep));
        OUT(0, ag_masked_fill(g[0], drop, tensor_scalar_i(0)));
    }
    RULE_END;
}

/* ---- binary ---------------------------------------------------------------------------------------- */

BW(add) {
    if (NEEDS(0)) gi[0] = ref(g[0]);
    if (NEEDS(1)) {
        if (scalar_value(n->args.alpha) == 1.0)
            gi[1] = ref(g[0]);
        else if (!(gi[1] = ag_mul_scalar(g[0], n->args.alpha)))
            return -1;
    }
    return 0;
}

BW(sub) {
    if (NEEDS(0)) gi[0] = ref(g[0]);
    if (NEEDS(1)) {
        TensorScalar na = n->args.alpha;
        na.f = -na.f;
        na.i = -na.i;
        if (!(gi[1] = ag_mul_scalar(g[0], na))) return -1;
    }
    return 0;
}

/* saved tensors are unpacked up front in slot order, as PyTorch's generated apply() does (the
 * order unpack hooks observe) */
BW(mul) {
    RULE_BEGIN;
    Tensor *self, *other;
    SAVED(0, self);
    SAVED(1, other);
    if (NEEDS(0)) OUT(0, ag_mul(g[0], other));
    if (NEEDS(1)) OUT(1, ag_mul(g[0], self));
    RULE_END;
}

BW(div) {
    RULE_BEGIN;
    Tensor *self, *other;
    SAVED(0, self);
    SAVED(1, other);
    if (NEEDS(0)) OUT(0, ag_div(g[0], other));
    if (NEEDS(1)) {
        Tensor *o2, *q, *t;
        TMP(o2, ag_mul(other, other));
        TMP(q, ag_div(self, o2));
        TMP(t, ag_mul(g[0], q));
        OUT(1, ag_neg(t));
    }
    RULE_END;
}

BW(pow) {
    RULE_BEGIN;
    Tensor *self, *ex, *res;
    SAVED(0, self);
    SAVED(1, ex);
    SAVED(2, res);
    if (NEEDS(0)) {
        Tensor *e1, *p, *ge, *t, *zero_ex;
        TMP(e1, ag_sub_scalar(ex, tensor_scalar_i(1)));
        TMP(p, ag_pow(self, e1));
        TMP(ge, ag_mul(g[0], ex));
        TMP(t, ag_mul(ge, p));
        TMP(zero_ex, ag__const_scalar(TENSOR_OP_EQ_SCALAR, ex, tensor_scalar_i(0)));
        OUT(0, ag_masked_fill(t, zero_ex, tensor_scalar_i(0)));
    }
    if (NEEDS(1)) {
        Tensor *l, *gr, *t, *z, *nn, *m;
        TMP(l, ag_log(self));
        TMP(gr, ag_mul(g[0], res));
        TMP(t, ag_mul(gr, l));
        TMP(z, ag__const_scalar(TENSOR_OP_EQ_SCALAR, self, tensor_scalar_i(0)));
        TMP(nn, ag__const_scalar(TENSOR_OP_GE_SCALAR, ex, tensor_scalar_i(0)));
        TMP(m, ag__const2(TENSOR_OP_LOGICAL_AND, z, nn));
        OUT(1, ag_masked_fill(t, m, tensor_scalar_i(0)));
    }
    RULE_END;
}

/* maximum/minimum: the gradient goes to the selected input, split evenly on ties */
static int minmax_bw(AgNode *n, Tensor *const *g, Tensor **gi, bool is_max) {
    RULE_BEGIN;
    Tensor *self, *other, *eq;
    SAVED(0, self);
    SAVED(1, other);
    TMP(eq, ag__const2(TENSOR_OP_EQ, self, other));
    for (int i = 0; i < 2; i++) {
        if (!NEEDS(i)) continue;
        Tensor *ones, *half, *lose, *f;
        TMP(ones, ag__const_full((TensorDtype)g[0]->dtype, eq->ndim, eq->shape, tensor_scalar_i(1)));
        TMP(half, ag__const_masked_fill(ones, eq, sc(0.5)));
        /* input i loses where the other one is selected */
        bool self_loses_on_lt = is_max == (i == 0);
        TMP(lose, ag__const2(self_loses_on_lt ? TENSOR_OP_LT : TENSOR_OP_GT, self, other));
        TMP(f, ag__const_masked_fill(half, lose, tensor_scalar_i(0)));
        OUT(i, ag_mul(g[0], f));
    }
    RULE_END;
}

BW(maximum) { return minmax_bw(n, g, gi, true); }
BW(minimum) { return minmax_bw(n, g, gi, false); }

BW(remainder) {
    RULE_BEGIN;
    if (NEEDS(0)) gi[0] = ref(g[0]);
    if (NEEDS(1)) {
        Tensor *self, *other, *q, *t;
        SAVED(0, self);
        SAVED(1, other);
        TMP(q, ag__const2(TENSOR_OP_FLOOR_DIVIDE, self, other));
        TMP(t, ag_mul(g[0], q));
        OUT(1, ag_neg(t));
    }
    RULE_END;
}

BW(atan2) {
    /* d/dx atan2(x, y) = y / (x^2 + y^2), d/dy = -x / (x^2 + y^2) */
    RULE_BEGIN;
    Tensor *self, *other, *xx, *yy, *den;
    SAVED(0, self);
    SAVED(1, other);
    TMP(xx, ag_mul(self, self));
    TMP(yy, ag_mul(other, other));
    TMP(den, ag_add(xx, yy));
    if (NEEDS(0)) {
        Tensor *num;
        TMP(num, ag_mul(g[0], other));
        OUT(0, ag_div(num, den));
    }
    if (NEEDS(1)) {
        Tensor *num, *q;
        TMP(num, ag_mul(g[0], self));
        TMP(q, ag_div(num, den));
        OUT(1, ag_neg(q));
    }
    RULE_END;
}

BW(fmod) {
    /* d/dy fmod(x, y) = -trunc(x / y) */
    RULE_BEGIN;
    if (NEEDS(0)) gi[0] = ref(g[0]);
    if (NEEDS(1)) {
        Tensor *self, *other, *d, *c, *f, *neg, *q, *t;
        SAVED(0, self);
        SAVED(1, other);
        TMP(d, ag__const2(TENSOR_OP_DIV, self, other));
        TMP(c, ag__const1(TENSOR_OP_CEIL, d));
        TMP(f, ag__const1(TENSOR_OP_FLOOR, d));
        TMP(neg, ag__const_scalar(TENSOR_OP_LT_SCALAR, d, tensor_scalar_i(0)));
        Tensor *w[3] = {neg, c, f};
        TMP(q, ag__const(TENSOR_OP_WHERE, w, 3, NULL));
        TMP(t, ag_mul(g[0], q));
        OUT(1, ag_neg(t));
    }
    RULE_END;
}

/* ---- scalar forms (input 0 is the tensor) --------------------------------------------------------- */

BW(add_scalar) {
    gi[0] = ref(g[0]);
    return 0;
}

BW(mul_scalar) {
    OUT(0, ag_mul_scalar(g[0], n->args.scalar));
    return 0;
fail:
    return -1;
}

BW(div_scalar) {
    OUT(0, ag_div_scalar(g[0], n->args.scalar));
    return 0;
fail:
    return -1;
}

BW(pow_scalar) {
    RULE_BEGIN;
    Tensor *x, *p, *d;
    TensorScalar e = n->args.scalar;
    if (scalar_value(e) == 0.0) {
        OUT(0, ag__const1(TENSOR_OP_ZEROS_LIKE, g[0]));
    } else {
        TensorScalar e1 = e;
        e1.f -= 1;
        e1.i -= 1;
        SAVED(0, x);
        TMP(p, ag_pow_scalar(x, e1));
        TMP(d, ag_mul_scalar(p, e));
        OUT(0, ag_mul(g[0], d));
    }
    RULE_END;
}

BW(rsub_scalar) {
    TensorScalar na = n->args.alpha;
    na.f = -na.f;
    na.i = -na.i;
    OUT(0, ag_mul_scalar(g[0], na));
    return 0;
fail:
    return -1;
}

BW(rpow_scalar) {
    RULE_BEGIN;
    Tensor *r, *t;
    double base = scalar_value(n->args.scalar);
    if (base == 0.0) {
        OUT(0, ag__const1(TENSOR_OP_ZEROS_LIKE, g[0]));
    } else {
        SAVED(0, r);
        TMP(t, ag_mul(g[0], r));
        OUT(0, ag_mul_scalar(t, sc(log(base))));
    }
    RULE_END;
}

/* ---- where / masked_fill / copy_ -------------------------------------------------------------------- */

BW(where) {
    RULE_BEGIN;
    Tensor *cond;
    SAVED(0, cond);
    if (NEEDS(1)) {
        Tensor *nc;
        TMP(nc, ag__const1(TENSOR_OP_LOGICAL_NOT, cond));
        OUT(1, ag_masked_fill(g[0], nc, tensor_scalar_i(0)));
    }
    if (NEEDS(2)) OUT(2, ag_masked_fill(g[0], cond, tensor_scalar_i(0)));
    RULE_END;
}

BW(masked_fill) {
    RULE_BEGIN;
    Tensor *mask;
    SAVED(0, mask);
    OUT(0, ag_masked_fill(g[0], mask, tensor_scalar_i(0)));
    RULE_END;
}

BW(copy_) {
    if (NEEDS(0) && !(gi[0] = ag__const1(TENSOR_OP_ZEROS_LIKE, g[0]))) return -1;
    if (NEEDS(1)) gi[1] = ref(g[0]);
    return 0;
}

BW(mul_) { return ag__bw_mul(n, g, gi); }
BW(div_) { return ag__bw_div(n, g, gi); }

/* ---- log1p ... atanh: each backward as tools/autograd/derivatives.yaml writes it, in its order of
 * operations, so the gradients round as PyTorch's do ---------------------------------------------- */

/* grad / (self + 1) */
BW(log1p) {
    RULE_BEGIN;
    Tensor *x, *d;
    SAVED(0, x);
    TMP(d, ag_add_scalar(x, tensor_scalar_i(1)));
    OUT(0, ag_div(g[0], d));
    RULE_END;
}

/* grad * (result + 1) */
BW(expm1) {
    RULE_BEGIN;
    Tensor *r, *d;
    SAVED(0, r);
    TMP(d, ag_add_scalar(r, tensor_scalar_i(1)));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* grad * result * ln 2 */
BW(exp2) {
    RULE_BEGIN;
    Tensor *r, *t;
    SAVED(0, r);
    TMP(t, ag_mul(g[0], r));
    OUT(0, ag_mul_scalar(t, sc(0.6931471805599453)));
    RULE_END;
}

/* grad / (self * ln 2) */
BW(log2) {
    RULE_BEGIN;
    Tensor *x, *d;
    SAVED(0, x);
    TMP(d, ag_mul_scalar(x, sc(0.6931471805599453)));
    OUT(0, ag_div(g[0], d));
    RULE_END;
}

/* grad / (self * ln 10) */
BW(log10) {
    RULE_BEGIN;
    Tensor *x, *d;
    SAVED(0, x);
    TMP(d, ag_mul_scalar(x, sc(2.3025850929940456)));
    OUT(0, ag_div(g[0], d));
    RULE_END;
}

/* grad * (1 + result^2) */
BW(tan) {
    RULE_BEGIN;
    Tensor *r, *r2, *d;
    SAVED(0, r);
    TMP(r2, ag_pow_scalar(r, tensor_scalar_i(2)));
    TMP(d, ag_add_scalar(r2, tensor_scalar_i(1)));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* grad * (-self * self + 1).rsqrt() */
BW(asin) {
    RULE_BEGIN;
    Tensor *x, *nx, *t, *u, *d;
    SAVED(0, x);
    TMP(nx, ag_neg(x));
    TMP(t, ag_mul(nx, x));
    TMP(u, ag_add_scalar(t, tensor_scalar_i(1)));
    TMP(d, ag_unary(TENSOR_OP_RSQRT, u));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* grad * -((-self * self + 1).rsqrt()) */
BW(acos) {
    RULE_BEGIN;
    Tensor *x, *nx, *t, *u, *d, *nd;
    SAVED(0, x);
    TMP(nx, ag_neg(x));
    TMP(t, ag_mul(nx, x));
    TMP(u, ag_add_scalar(t, tensor_scalar_i(1)));
    TMP(d, ag_unary(TENSOR_OP_RSQRT, u));
    TMP(nd, ag_neg(d));
    OUT(0, ag_mul(g[0], nd));
    RULE_END;
}

/* grad / (self * self + 1) */
BW(atan) {
    RULE_BEGIN;
    Tensor *x, *t, *d;
    SAVED(0, x);
    TMP(t, ag_mul(x, x));
    TMP(d, ag_add_scalar(t, tensor_scalar_i(1)));
    OUT(0, ag_div(g[0], d));
    RULE_END;
}

/* grad * self.cosh() */
BW(sinh) {
    RULE_BEGIN;
    Tensor *x, *d;
    SAVED(0, x);
    TMP(d, ag_unary(TENSOR_OP_COSH, x));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* grad * self.sinh() */
BW(cosh) {
    RULE_BEGIN;
    Tensor *x, *d;
    SAVED(0, x);
    TMP(d, ag_unary(TENSOR_OP_SINH, x));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* grad * (self.pow(2) + 1).rsqrt() */
BW(asinh) {
    RULE_BEGIN;
    Tensor *x, *x2, *u, *d;
    SAVED(0, x);
    TMP(x2, ag_pow_scalar(x, tensor_scalar_i(2)));
    TMP(u, ag_add_scalar(x2, tensor_scalar_i(1)));
    TMP(d, ag_unary(TENSOR_OP_RSQRT, u));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* grad * (self.pow(2) - 1).rsqrt() */
BW(acosh) {
    RULE_BEGIN;
    Tensor *x, *x2, *u, *d;
    SAVED(0, x);
    TMP(x2, ag_pow_scalar(x, tensor_scalar_i(2)));
    TMP(u, ag_sub_scalar(x2, tensor_scalar_i(1)));
    TMP(d, ag_unary(TENSOR_OP_RSQRT, u));
    OUT(0, ag_mul(g[0], d));
    RULE_END;
}

/* grad * 1 / (1 - self.pow(2)) */
BW(atanh) {
    RULE_BEGIN;
    Tensor *x, *x2, *d;
    SAVED(0, x);
    TMP(x2, ag_pow_scalar(x, tensor_scalar_i(2)));
    TMP(d, ag_rsub_scalar(x2, tensor_scalar_i(1)));
    OUT(0, ag_div(g[0], d));
    RULE_END;
}

/* -2/sqrt(pi) * exp(-x^2) * grad, as derivatives.yaml writes it */
BW(erfc) {
    RULE_BEGIN;
    Tensor *x, *x2, *nx2, *e, *d;
    SAVED(0, x);
    TMP(x2, ag_mul(x, x));
    TMP(nx2, ag_neg(x2));
    TMP(e, ag_exp(nx2));
    TMP(d, ag_mul_scalar(e, sc(-1.1283791670955126)));   /* -2/sqrt(pi) */
    OUT(0, ag_mul(d, g[0]));
    RULE_END;
}

/* ATen's sinc_backward: grad * (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 where x is 0 */
BW(sinc) {
    RULE_BEGIN;
    Tensor *x, *xp, *c, *xc, *sn, *num, *gn, *xx, *den, *q, *zero;
    SAVED(0, x);
    TMP(xp, ag_mul_scalar(x, sc(3.14159265358979323846)));
    TMP(c, ag_cos(xp));
    TMP(xc, ag_mul(xp, c));
    TMP(sn, ag_sin(xp));
    TMP(num, ag_sub(xc, sn));
    TMP(gn, ag_mul(g[0], num));
    TMP(xx, ag_mul(x, x));
    TMP(den, ag_mul_scalar(xx, sc(3.14159265358979323846)));
    TMP(q, ag_div(gn, den));
    TMP(zero, ag__const_scalar(TENSOR_OP_EQ_SCALAR, den, tensor_scalar_f(0.0)));
    OUT(0, ag_masked_fill(q, zero, tensor_scalar_f(0.0)));
    RULE_END;
}

/* grad * self / result and grad * other / result */
BW(hypot) {
    RULE_BEGIN;
    Tensor *x, *y, *r;
    SAVED(0, x);
    SAVED(1, y);
    Tensor *in[2] = {x, y};
    TMP(r, ag_op1(TENSOR_OP_HYPOT, in, 2, NULL));
    if (NEEDS(0)) {
        Tensor *q;
        TMP(q, ag_mul(g[0], x));
        OUT(0, ag_div(q, r));
    }
    if (NEEDS(1)) {
        Tensor *q;
        TMP(q, ag_mul(g[0], y));
        OUT(1, ag_div(q, r));
    }
    RULE_END;
}

/* grad / (1 + b^(other - self)) and grad / (1 + b^(self - other)): b = e (logaddexp), 2 (logaddexp2) */
static int logaddexp_bw(AgNode *n, Tensor *const *g, Tensor **gi, bool base2) {
    RULE_BEGIN;
    Tensor *x, *y;
    SAVED(0, x);
    SAVED(1, y);
    for (int i = 0; i < 2; i++) {
        if (!NEEDS(i)) continue;
        Tensor *d, *e, *den;
        TMP(d, i == 0 ? ag_sub(y, x) : ag_sub(x, y));
        TMP(e, base2 ? ag_rpow_scalar(d, tensor_scalar_i(2)) : ag_exp(d));
        TMP(den, ag_add_scalar(e, tensor_scalar_i(1)));
        OUT(i, ag_div(g[0], den));
    }
    RULE_END;
}

BW(logaddexp) { return logaddexp_bw(n, g, gi, false); }
BW(logaddexp2) { return logaddexp_bw(n, g, gi, true); }

/* ATen's copysign_tensor_self_backward: grad * (result / self), 0 where self is 0; other gets
 * zeros (the sign is piecewise constant) */
BW(copysign) {
    RULE_BEGIN;
    Tensor *x, *y;
    SAVED(0, x);
    SAVED(1, y);
    if (NEEDS(0)) {
        Tensor *r, *ratio, *zero, *m;
        Tensor *in[2] = {x, y};
        TMP(r, ag_op1(TENSOR_OP_COPYSIGN, in, 2, NULL));
        TMP(ratio, ag_div(r, x));
        TMP(zero, ag__const_scalar(TENSOR_OP_EQ_SCALAR, x, tensor_scalar_i(0)));
        TMP(m, ag_masked_fill(ratio, zero, tensor_scalar_i(0)));
        OUT(0, ag_mul(g[0], m));
    }
    if (NEEDS(1)) OUT(1, ag__const1(TENSOR_OP_ZEROS_LIKE, y));
    RULE_END;
}
