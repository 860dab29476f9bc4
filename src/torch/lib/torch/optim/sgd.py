"""torch.optim.sgd: SGD with momentum, dampening, Nesterov momentum and weight decay."""
import torch
from torch._C._optim import _sgd_step as _sgd_step_f32, _grads_defined
from torch.optim._helpers import _sgd_step_tensors
from torch.optim.optimizer import Optimizer, required


class SGD(Optimizer):
    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        if lr is not required and lr < 0.0:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if momentum < 0.0:
            raise ValueError("Invalid momentum value: {}".format(momentum))
        if weight_decay < 0.0:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        state = self.state
        for group in self.param_groups:
            lr = group["lr"]
            momentum = group["momentum"]
            dampening = group["dampening"]
            weight_decay = group["weight_decay"]
            nesterov = group["nesterov"]
            maximize = group["maximize"]
            params = group["params"]
            for p, has_grad in zip(params, _grads_defined(params)):
                if not has_grad:
                    continue
                if momentum != 0:
                    st = state[p]
                    st["momentum_buffer"] = _sgd_step(p, st.get("momentum_buffer"), lr, momentum, dampening,
                                                      weight_decay, nesterov, maximize)
                else:
                    _sgd_step(p, None, lr, momentum, dampening, weight_decay, nesterov, maximize)
        return loss


def _sgd_step(p, buf, lr, momentum, dampening, weight_decay, nesterov, maximize):
    # (p.grad is not read here: its wrapper would keep the gradient's storage alive until the next
    # collection; the native step reads the gradient in C, and autograd gives it p's dtype)
    if p.dtype == torch.float32 and (buf is None or buf.dtype == torch.float32):
        return _sgd_step_f32(p, buf, lr, momentum, dampening, weight_decay, nesterov, maximize)
    return _sgd_step_tensors(p, buf, lr, momentum, dampening, weight_decay, nesterov, maximize)
