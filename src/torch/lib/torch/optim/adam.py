"""torch.optim.adam: Adam (with amsgrad), the update of PyTorch 2.x's single-tensor Adam."""
import torch
from torch._C._optim import _adam_step_all, _grads_defined
from torch.optim._helpers import _adam_step_tensors
from torch.optim.optimizer import Optimizer


def _check_adam_args(lr, eps, betas, weight_decay):
    if not 0.0 <= lr:
        raise ValueError("Invalid learning rate: {}".format(lr))
    if not 0.0 <= eps:
        raise ValueError("Invalid epsilon value: {}".format(eps))
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
    if not 0.0 <= weight_decay:
        raise ValueError("Invalid weight_decay value: {}".format(weight_decay))


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        decoupled = self._decoupled
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr = group["lr"]
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            amsgrad = group["amsgrad"]
            maximize = group["maximize"]
            params = group["params"]
            # the group's tensors as lists, then one native call updates them all (the same ops,
            # in the same order, as stepping each parameter in turn: optim.c _adam_step_all)
            ps, exp_avgs, exp_avg_sqs, max_sqs, steps = [], [], [], [] if amsgrad else None, []
            for p, has_grad in zip(params, _grads_defined(params)):
                if not has_grad:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.0)
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = torch.zeros_like(p)
                ps.append(p)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                if amsgrad:
                    max_sqs.append(state["max_exp_avg_sq"])
                steps.append(state["step"])
            if all(p.dtype == torch.float32 for p in ps):
                _adam_step_all(ps, exp_avgs, exp_avg_sqs, max_sqs, steps, lr, beta1, beta2, eps, weight_decay,
                               amsgrad, maximize, decoupled)
            else:   # other dtypes: PyTorch's single-tensor steps on the tensor ops (optim/_helpers.py)
                for i, p in enumerate(ps):
                    _adam_step_tensors(p, exp_avgs[i], exp_avg_sqs[i], max_sqs[i] if amsgrad else None, steps[i], lr,
                                       beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled)
        return loss
