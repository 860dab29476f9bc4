/* src/torch/optim.c — the per-parameter update steps of torch.optim (module torch._C._optim):
 * SGD (momentum, dampening, Nesterov, weight decay, maximize) and Adam / AdamW (amsgrad), each
 * one fused loop over a parameter's elements in float32, in the order of PyTorch 2.x's
 * single-tensor implementations (torch/optim/sgd.py _single_tensor_sgd, adam.py
 * _single_tensor_adam, adamw.py).  The Python classes (lib/torch/optim) keep the state and the
 * param groups and call these; no autograd is recorded (optimizers step under no_grad).
 *
 * Every tensor is updated through a contiguous float32 working copy when it is not contiguous
 * itself, and written back; updated tensors get their version counter bumped as an in-place op
 * would. */
#include <math.h>
#include <stdlib.h>

#include "src/torch/module.h"
#include "vm/gc.h"
#include "vm/native.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* A float32 tensor argument viewed as a contiguous array. */
typedef struct Work {
    Tensor *t;       /* the argument (borrowed) */
    Tensor *c;       /* contiguous float32 version (new ref; == t when t already is) */
    float *d;
} Work;

static int work_open(VM *vm, Value v, const char *what, int64_t numel, const Tensor *like, Work *w) {
    w->t = w->c = NULL;
    if (!torch_is_tensor(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "optimizer step: %s must be a Tensor, not %s", what, vm_type_name(vm, v));
        return -1;
    }
    Tensor *t = torch_tensor_of(v);
    if (tensor_dtype(t) != TENSOR_FLOAT32) {
        vm_raise(vm, vm->e_RuntimeError, "optimizer step: %s must be a floating point tensor", what);
        return -1;
    }
    if (tensor_numel(t) != numel || (like && tensor_ndim(t) != tensor_ndim(like))) {
        vm_raise(vm, vm->e_RuntimeError, "optimizer step: %s has a different shape than the parameter", what);
        return -1;
    }
    for (int i = 0; like && i < tensor_ndim(t); i++)
        if (tensor_shape(t)[i] != tensor_shape(like)[i]) {
            vm_raise(vm, vm->e_RuntimeError, "optimizer step: %s has a different shape than the parameter", what);
            return -1;
        }
    Tensor *c = tensor_contiguous(t);
    if (!c) {
        torch_raise_error(vm);
        return -1;
    }
    w->t = t;
    w->c = c;
    w->d = tensor_data_ptr(c);
    return 0;
}

/* Write a modified working copy back (when it was a copy) and release it. */
static int work_close(VM *vm, Work *w, bool modified) {
    int rc = 0;
    if (!w->c) return 0;
    if (modified) {
        if (w->c != w->t) rc = tensor_copy_(w->t, w->c);
        else tensor_bump_version(w->t);
    }
    tensor_decref(w->c);
    w->c = NULL;
    if (rc < 0) torch_raise_error(vm);
    return rc;
}

static int dbl(VM *vm, Value v, double *out) { return vm_to_double(vm, v, out); }

/* _sgd_step(param, grad, buf_or_None, lr, momentum, dampening, weight_decay, nesterov, maximize)
 * -> the momentum buffer (a new one on the first step with momentum), or None. */
static Value f_sgd_step(ARGS) {
    if (argc != 9 || kw) return vm_raise(vm, vm->e_TypeError, "_sgd_step() takes 9 positional arguments");
    double lr, momentum, dampening, wd;
    if (dbl(vm, argv[3], &lr) < 0 || dbl(vm, argv[4], &momentum) < 0 || dbl(vm, argv[5], &dampening) < 0 ||
        dbl(vm, argv[6], &wd) < 0)
        return val_null();
    int nesterov = vm_truthy(vm, argv[7]), maximize = vm_truthy(vm, argv[8]);
    if (nesterov < 0 || maximize < 0) return val_null();
    if (!torch_is_tensor(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "optimizer step: param must be a Tensor");
    Tensor *pt = torch_tensor_of(argv[0]);
    int64_t n = tensor_numel(pt);
    Work p = {0}, g = {0}, b = {0};
    Value result = val_none();
    bool first = momentum != 0 && val_is_none(argv[2]);
    if (work_open(vm, argv[0], "param", n, NULL, &p) < 0 || work_open(vm, argv[1], "grad", n, pt, &g) < 0) goto fail;
    if (first) {
        Tensor *nb = tensor_empty_like(pt);
        if (!nb) {
            torch_raise_error(vm);
            goto fail;
        }
        result = torch_wrap(vm, nb);
        if (val_is_null(result)) goto fail;
        vm_push_root(vm, result);
        int rc = work_open(vm, result, "momentum_buffer", n, pt, &b);
        vm_pop_root(vm);
        if (rc < 0) goto fail;
    } else if (momentum != 0) {
        result = argv[2];
        if (work_open(vm, argv[2], "momentum_buffer", n, pt, &b) < 0) goto fail;
    }
    {
        float *pd = p.d, *gd = g.d, *bd = b.d;
        const float fwd = (float)wd, fm = (float)momentum, f1md = (float)(1 - dampening), fnlr = (float)-lr;
        for (int64_t i = 0; i < n; i++) {
            float d = maximize ? -gd[i] : gd[i];
            if (wd != 0) d = d + fwd * pd[i];                 /* d_p = d_p.add(param, alpha=wd) */
            if (momentum != 0) {
                if (first) {
                    bd[i] = d;                                 /* buf = clone(d_p) */
                } else {
                    float t = bd[i] * fm;                      /* buf.mul_(momentum) */
                    bd[i] = t + f1md * d;                      /*    .add_(d_p, alpha=1-dampening) */
                }
                d = nesterov ? d + fm * bd[i] : bd[i];         /* d_p = d_p.add(buf, alpha=m) or buf */
            }
            pd[i] = pd[i] + fnlr * d;                          /* param.add_(d_p, alpha=-lr) */
        }
    }
    if (work_close(vm, &b, momentum != 0) < 0 || work_close(vm, &g, false) < 0 || work_close(vm, &p, true) < 0)
        goto fail;
    return result;
fail:
    work_close(vm, &b, false);
    work_close(vm, &g, false);
    work_close(vm, &p, false);
    return val_null();
}

/* _adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq_or_None, step, lr, beta1, beta2,
 *            eps, weight_decay, amsgrad, maximize, decoupled_weight_decay)
 * step is the already incremented step count; decoupled: AdamW. */
static Value f_adam_step(ARGS) {
    if (argc != 14 || kw) return vm_raise(vm, vm->e_TypeError, "_adam_step() takes 14 positional arguments");
    double step, lr, beta1, beta2, eps, wd;
    if (dbl(vm, argv[5], &step) < 0 || dbl(vm, argv[6], &lr) < 0 || dbl(vm, argv[7], &beta1) < 0 ||
        dbl(vm, argv[8], &beta2) < 0 || dbl(vm, argv[9], &eps) < 0 || dbl(vm, argv[10], &wd) < 0)
        return val_null();
    int amsgrad = vm_truthy(vm, argv[11]), maximize = vm_truthy(vm, argv[12]), decoupled = vm_truthy(vm, argv[13]);
    if (amsgrad < 0 || maximize < 0 || decoupled < 0) return val_null();
    if (!torch_is_tensor(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "optimizer step: param must be a Tensor");
    Tensor *pt = torch_tensor_of(argv[0]);
    int64_t n = tensor_numel(pt);
    Work p = {0}, g = {0}, m = {0}, v = {0}, mx = {0};
    if (work_open(vm, argv[0], "param", n, NULL, &p) < 0 || work_open(vm, argv[1], "grad", n, pt, &g) < 0 ||
        work_open(vm, argv[2], "exp_avg", n, pt, &m) < 0 || work_open(vm, argv[3], "exp_avg_sq", n, pt, &v) < 0 ||
        (amsgrad && work_open(vm, argv[4], "max_exp_avg_sq", n, pt, &mx) < 0))
        goto fail;
    {
        /* scalars as PyTorch computes them: Python floats, then float32 inside the kernels */
        double bias_correction1 = 1 - pow(beta1, step);
        double bias_correction2 = 1 - pow(beta2, step);
        double step_size = lr / bias_correction1;
        double bc2_sqrt = sqrt(bias_correction2);
        const float w1 = (float)(1 - beta1), fb2 = (float)beta2, f1mb2 = (float)(1 - beta2);
        const float fwd = (float)wd, fdecay = (float)(1 - lr * wd), fbc2 = (float)bc2_sqrt, feps = (float)eps;
        const float fnss = (float)-step_size;
        float *pd = p.d, *gd = g.d, *md = m.d, *vd = v.d, *xd = mx.d;
        for (int64_t i = 0; i < n; i++) {
            float gr = maximize ? -gd[i] : gd[i];
            if (decoupled) pd[i] = pd[i] * fdecay;            /* AdamW: param.mul_(1 - lr*wd) */
            else if (wd != 0) gr = gr + fwd * pd[i];          /* grad = grad.add(param, alpha=wd) */
            /* exp_avg.lerp_(grad, 1 - beta1) (ATen's lerp: weight < 0.5 form) */
            float diff = gr - md[i];
            md[i] = w1 < 0.5f ? md[i] + w1 * diff : gr - diff * (1 - w1);
            float t = vd[i] * fb2;                             /* exp_avg_sq.mul_(beta2) */
            vd[i] = t + f1mb2 * gr * gr;                       /*   .addcmul_(grad, grad, value=1-beta2) */
            float den;
            if (amsgrad) {
                if (vd[i] > xd[i] || isnan(vd[i])) xd[i] = vd[i];   /* torch.maximum(..., out=max) */
                den = sqrtf(xd[i]) / fbc2 + feps;
            } else {
                den = sqrtf(vd[i]) / fbc2 + feps;              /* (sqrt(v) / bc2_sqrt).add_(eps) */
            }
            pd[i] = pd[i] + fnss * (md[i] / den);              /* param.addcdiv_(m, denom, value=-step_size) */
        }
    }
    if (work_close(vm, &mx, amsgrad) < 0 || work_close(vm, &v, true) < 0 || work_close(vm, &m, true) < 0 ||
        work_close(vm, &g, false) < 0 || work_close(vm, &p, true) < 0)
        goto fail;
    return val_none();
fail:
    work_close(vm, &mx, false);
    work_close(vm, &v, false);
    work_close(vm, &m, false);
    work_close(vm, &g, false);
    work_close(vm, &p, false);
    return val_null();
}

static int optim_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {{"_sgd_step", f_sgd_step}, {"_adam_step", f_adam_step}, {NULL}};
    return module_add_functions(vm, mod, fns);
}

void torch_optim_register(VM *vm) { vm_register_native_module(vm, "torch._C._optim", optim_init); }
