"""torch.optim.adadelta: Adadelta, PyTorch 1.13's single-tensor update."""
import torch
from torch.optim.optimizer import Optimizer
from torch.optim._helpers import _addcmul_, _check


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, maximize=False):
        _check(0.0 <= lr, "learning rate", lr)
        _check(0.0 <= rho <= 1.0, "rho value", rho)
        _check(0.0 <= eps, "epsilon value", eps)
        _check(0.0 <= weight_decay, "weight_decay value", weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach)
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
            lr, rho, eps, wd, maximize = group["lr"], group["rho"], group["eps"], group["weight_decay"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["square_avg"] = torch.zeros_like(p)
                    state["acc_delta"] = torch.zeros_like(p)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                state["step"] += 1
                grad = p.grad if not maximize else -p.grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                _addcmul_(square_avg.mul_(rho), grad, grad, 1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
                _addcmul_(acc_delta.mul_(rho), delta, delta, 1 - rho)
                p.add_(delta, alpha=-lr)
        return loss
