"""torch.optim.adamax: Adamax (the infinity-norm Adam), PyTorch 1.13's single-tensor update."""
import torch
from torch.optim.optimizer import Optimizer
from torch.optim._helpers import _addcdiv_, _check


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False):
        _check(0.0 <= lr, "learning rate", lr)
        _check(0.0 <= eps, "epsilon value", eps)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
        _check(0.0 <= weight_decay, "weight_decay value", weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd, maximize = group["lr"], group["eps"], group["weight_decay"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.)
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_inf"] = torch.zeros_like(p)
                exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
                step_t += 1
                step = step_t.item()
                grad = p.grad if not maximize else -p.grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_inf.copy_(torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
                clr = lr / (1 - beta1 ** step)
                _addcdiv_(p, exp_avg, exp_inf, -clr)
        return loss
