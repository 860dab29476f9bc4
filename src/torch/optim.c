/* src/torch/optim.c — the per-parameter update steps of torch.optim (module torch._C._optim):
 * SGD (momentum, dampening, Nesterov, weight decay, maximize) and Adam / AdamW (amsgrad), each
 * one fused loop over a parameter's elements in float32 (optim_kernels.c), in the order of
 * PyTorch 2.x's single-tensor implementations (torch/optim/sgd.py _single_tensor_sgd, adam.py
 * _single_tensor_adam, adamw.py).  The Python classes (lib/torch/optim) keep the state and the
 * param groups and call these; no autograd is recorded (optimizers step under no_grad).  Adam's
 * native takes a whole param group as lists (one call a step, as PyTorch's foreach variants).
 *
 * Every tensor is updated through a contiguous float32 working copy when it is not contiguous
 * itself, and written back; updated tensors get their version counter bumped as an in-place op
 * would. */
#include <math.h>
#include <stdlib.h>

#include "src/torch/module.h"
#include "src/torch/optim_kernels.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* A float32 tensor argument viewed as a contiguous array. */
typedef struct Work {
    Tensor *t;       /* the argument (borrowed) */
    Tensor *c;       /* contiguous float32 version (new ref; == t when t already is) */
    float *d;
} Work;

static int work_open_t(VM *vm, Tensor *t, const char *what, int64_t numel, const Tensor *like, Work *w) {
    w->t = w->c = NULL;
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

static int work_open(VM *vm, Value v, const char *what, int64_t numel, const Tensor *like, Work *w) {
    w->t = w->c = NULL;
    if (!torch_is_tensor(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "optimizer step: %s must be a Tensor, not %s", what, vm_type_name(vm, v));
        return -1;
    }
    return work_open_t(vm, torch_tensor_of(v), what, numel, like, w);
}

/* The parameter and its .grad (read in C: no wrapper object is made for the gradient, so a
 * step leaves no garbage holding gradient storage). */
static int open_param(VM *vm, Value v, Work *p, Work *g, int64_t *n) {
    if (!torch_is_tensor(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "optimizer step: param must be a Tensor, not %s", vm_type_name(vm, v));
        return -1;
    }
    Tensor *pt = torch_tensor_of(v);
    Tensor *gt = ag_grad_of(pt);
    if (!gt) {
        vm_raise(vm, vm->e_RuntimeError, "optimizer step: the parameter has no gradient");
        return -1;
    }
    *n = tensor_numel(pt);
    if (work_open_t(vm, pt, "param", *n, NULL, p) < 0) return -1;
    return work_open_t(vm, gt, "grad", *n, pt, g);
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

/* _sgd_step(param, buf_or_None, lr, momentum, dampening, weight_decay, nesterov, maximize)
 * -> the momentum buffer (a new one on the first step with momentum), or None.  The gradient is
 * param.grad, which must be defined. */
static Value f_sgd_step(ARGS) {
    if (argc != 8 || kw) return vm_raise(vm, vm->e_TypeError, "_sgd_step() takes 8 positional arguments");
    double lr, momentum, dampening, wd;
    if (dbl(vm, argv[2], &lr) < 0 || dbl(vm, argv[3], &momentum) < 0 || dbl(vm, argv[4], &dampening) < 0 ||
        dbl(vm, argv[5], &wd) < 0)
        return val_null();
    int nesterov = vm_truthy(vm, argv[6]), maximize = vm_truthy(vm, argv[7]);
    if (nesterov < 0 || maximize < 0) return val_null();
    Work p = {0}, g = {0}, b = {0};
    int64_t n = 0;
    Value result = val_none();
    bool first = momentum != 0 && val_is_none(argv[1]);
    if (open_param(vm, argv[0], &p, &g, &n) < 0) goto fail;
    Tensor *pt = p.t;
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
        result = argv[1];
        if (work_open(vm, argv[1], "momentum_buffer", n, pt, &b) < 0) goto fail;
    }
    {
        SgdArgs sa = {(float)lr, (float)momentum, (float)dampening, (float)wd, nesterov, maximize, first};
        optim_sgd_kernel(p.d, g.d, momentum != 0 ? b.d : NULL, n, &sa);
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

/* One parameter's Adam update: the tensors (param first; its gradient is param.grad) and the
 * already incremented step; decoupled: AdamW. */
static int adam_one(VM *vm, Value param, Value exp_avg, Value exp_avg_sq, Value max_sq, const AdamArgs *aa) {
    Work p = {0}, g = {0}, m = {0}, v = {0}, mx = {0};
    int64_t n = 0;
    if (open_param(vm, param, &p, &g, &n) < 0) goto fail;
    Tensor *pt = p.t;
    if (work_open(vm, exp_avg, "exp_avg", n, pt, &m) < 0 || work_open(vm, exp_avg_sq, "exp_avg_sq", n, pt, &v) < 0 ||
        (aa->amsgrad && work_open(vm, max_sq, "max_exp_avg_sq", n, pt, &mx) < 0))
        goto fail;
    optim_adam_kernel(p.d, g.d, m.d, v.d, aa->amsgrad ? mx.d : NULL, n, aa);
    if (work_close(vm, &mx, aa->amsgrad) < 0 || work_close(vm, &v, true) < 0 || work_close(vm, &m, true) < 0 ||
        work_close(vm, &g, false) < 0 || work_close(vm, &p, true) < 0)
        goto fail;
    return 0;
fail:
    work_close(vm, &mx, false);
    work_close(vm, &v, false);
    work_close(vm, &m, false);
    work_close(vm, &g, false);
    work_close(vm, &p, false);
    return -1;
}

/* _adam_step_all(params, exp_avgs, exp_avg_sqs, max_exp_avg_sqs_or_None, steps, lr, beta1, beta2,
 *                eps, weight_decay, amsgrad, maximize, decoupled_weight_decay)
 * A param group's whole update in one call (issue 20: the optimizer's update as one loop over all
 * parameters, as PyTorch's foreach implementations take lists): for each parameter i, the step
 * tensor steps[i] gets step.add_(1) and params[i] the update of _adam_step with step.item() —
 * the same ops in the same order, so the same bits as the per-parameter loop. */
static Value f_adam_step_all(ARGS) {
    if (argc != 13 || kw) return vm_raise(vm, vm->e_TypeError, "_adam_step_all() takes 13 positional arguments");
    bool ams_none = val_is_none(argv[3]);
    for (int i = 0; i < 5; i++)
        if (!(i == 3 && ams_none) && !val_is_type(vm, argv[i], vm->t_list))
            return vm_raise(vm, vm->e_TypeError, "_adam_step_all(): argument %d must be a list", i + 1);
    double lr, beta1, beta2, eps, wd;
    if (dbl(vm, argv[5], &lr) < 0 || dbl(vm, argv[6], &beta1) < 0 || dbl(vm, argv[7], &beta2) < 0 ||
        dbl(vm, argv[8], &eps) < 0 || dbl(vm, argv[9], &wd) < 0)
        return val_null();
    int amsgrad = vm_truthy(vm, argv[10]), maximize = vm_truthy(vm, argv[11]), decoupled = vm_truthy(vm, argv[12]);
    if (amsgrad < 0 || maximize < 0 || decoupled < 0) return val_null();
    ListObj *ps = AS_LIST(argv[0]), *ms = AS_LIST(argv[1]), *vs = AS_LIST(argv[2]), *st = AS_LIST(argv[4]);
    ListObj *xs = ams_none ? NULL : AS_LIST(argv[3]);
    int64_t n = ps->len;
    if (ms->len != n || vs->len != n || st->len != n || (amsgrad && (!xs || xs->len != n)))
        return vm_raise(vm, vm->e_ValueError, "_adam_step_all(): the lists must have the same length");
    for (int64_t i = 0; i < n; i++) {
        /* lists are only read (no Python code runs below), so their items stay put */
        if (!torch_is_tensor(vm, st->items[i]))
            return vm_raise(vm, vm->e_TypeError, "optimizer step: step must be a Tensor, not %s",
                            vm_type_name(vm, st->items[i]));
        Tensor *step_t = torch_tensor_of(st->items[i]);
        TensorScalar sv;
        if (tensor_add_scalar_(step_t, tensor_scalar_i(1), tensor_scalar_i(1)) < 0 || tensor_item(step_t, &sv) < 0)
            return torch_raise_error(vm);
        double step = sv.kind == TENSOR_FLOAT32 ? sv.f : (double)sv.i;
        AdamArgs aa = {lr, beta1, beta2, eps, wd, step, amsgrad, maximize, decoupled};
        if (adam_one(vm, ps->items[i], ms->items[i], vs->items[i], amsgrad ? xs->items[i] : val_none(), &aa) < 0)
            return val_null();
    }
    return val_none();
}

/* _grads_defined(params) -> [p.grad is not None for p in params], without making .grad objects */
static Value f_grads_defined(ARGS) {
    if (argc != 1 || kw || !val_is_type(vm, argv[0], vm->t_list))
        return vm_raise(vm, vm->e_TypeError, "_grads_defined(params: list)");
    ListObj *ps = AS_LIST(argv[0]);
    ListObj *out = list_new(vm, ps->len);
    if (!out) return val_null();
    for (int64_t i = 0; i < ps->len; i++) {
        Value p = ps->items[i];
        out->items[i] = val_bool(torch_is_tensor(vm, p) && ag_grad_of(torch_tensor_of(p)) != NULL);
    }
    out->len = ps->len;
    return val_obj(out);
}

/* _zero_grad(params, set_to_none): Optimizer.zero_grad over a list of tensors */
static Value f_zero_grad(ARGS) {
    if (argc != 2 || kw || !val_is_type(vm, argv[0], vm->t_list))
        return vm_raise(vm, vm->e_TypeError, "_zero_grad(params: list, set_to_none)");
    int to_none = vm_truthy(vm, argv[1]);
    if (to_none < 0) return val_null();
    ListObj *ps = AS_LIST(argv[0]);
    for (int64_t i = 0; i < ps->len; i++) {
        if (!torch_is_tensor(vm, ps->items[i])) continue;
        Tensor *p = torch_tensor_of(ps->items[i]);
        Tensor *g = ag_grad_of(p);
        if (!g) continue;
        if (to_none) {
            if (ag_set_grad(p, NULL) < 0) return torch_raise_error(vm);
            continue;
        }
        if (ag_grad_fn(g) ? ag_detach_(g) < 0 : ag_set_requires_grad(g, false) < 0) return torch_raise_error(vm);
        if (tensor_zero_(g) < 0) return torch_raise_error(vm);
    }
    return val_none();
}

static int optim_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {{"_sgd_step", f_sgd_step}, {"_adam_step_all", f_adam_step_all},
                                    {"_grads_defined", f_grads_defined}, {"_zero_grad", f_zero_grad}, {NULL}};
    return module_add_functions(vm, mod, fns);
}

void torch_optim_register(VM *vm) { vm_register_native_module(vm, "torch._C._optim", optim_init); }
