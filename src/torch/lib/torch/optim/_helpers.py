"""Shared pieces of the Python optimizers: PyTorch's addcmul_/addcdiv_ rounding (addcmul_ is the
Tensor method, whose last product is fused into the add as ATen's FMA-built kernel does; addcdiv_
divides value * t1 by t2, then adds) and the argument checks."""


def _addcmul_(x, t1, t2, value=1.0):
    return x.addcmul_(t1, t2, value=value)


def _addcdiv_(x, t1, t2, value=1.0):
    return x.add_(t1 * value / t2)


def _check(cond, what, value):
    if not cond:
        raise ValueError("Invalid {}: {}".format(what, value))


# ---- SGD and Adam/AdamW for parameters that are not float32 ----
# The fused steps of src/torch/optim.c run float32 loops; other dtypes (float64 models) take
# PyTorch 1.13's single-tensor implementation, op for op (torch/optim/sgd.py _single_tensor_sgd,
# adam.py _single_tensor_adam, adamw.py _single_tensor_adamw), on the tensor ops.

def _sgd_step_tensors(p, buf, lr, momentum, dampening, weight_decay, nesterov, maximize):
    import torch
    with torch.no_grad():
        d_p = p.grad if not maximize else -p.grad
        if weight_decay != 0:
            d_p = d_p.add(p, alpha=weight_decay)
        if momentum != 0:
            if buf is None:
                buf = torch.clone(d_p).detach()
            else:
                buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
            if nesterov:
                d_p = d_p.add(buf, alpha=momentum)
            else:
                d_p = buf
        p.add_(d_p, alpha=-lr)
    return buf


def _adam_step_tensors(p, exp_avg, exp_avg_sq, max_exp_avg_sq, step_t, lr, beta1, beta2, eps, weight_decay, amsgrad,
                       maximize, decoupled):
    import math
    import torch
    with torch.no_grad():
        grad = p.grad if not maximize else -p.grad
        step_t += 1
        if decoupled:
            p.mul_(1 - lr * weight_decay)
        elif weight_decay != 0:
            grad = grad.add(p, alpha=weight_decay)
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = math.sqrt(bias_correction2)
        if amsgrad:
            torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
            denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        _addcdiv_(p, exp_avg, denom, value=-step_size)
