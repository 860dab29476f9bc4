"""torch.optim.rmsprop: RMSprop (centered, momentum), PyTorch 1.13's single-tensor update."""
import torch
from torch.optim.optimizer import Optimizer
from torch.optim._helpers import _addcmul_, _addcdiv_, _check


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 foreach=None, maximize=False, differentiable=False):
        _check(0.0 <= lr, "learning rate", lr)
        _check(0.0 <= eps, "epsilon value", eps)
        _check(0.0 <= momentum, "momentum value", momentum)
        _check(0.0 <= weight_decay, "weight_decay value", weight_decay)
        _check(0.0 <= alpha, "alpha value", alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, alpha, eps, wd = group["lr"], group["alpha"], group["eps"], group["weight_decay"]
            momentum, centered, maximize = group["momentum"], group["centered"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["square_avg"] = torch.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = torch.zeros_like(p)
                    if centered:
                        state["grad_avg"] = torch.zeros_like(p)
                state["step"] += 1
                grad = p.grad if not maximize else -p.grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                square_avg = state["square_avg"]
                _addcmul_(square_avg.mul_(alpha), grad, grad, 1 - alpha)
                if centered:
                    grad_avg = state["grad_avg"]
                    grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha)
                    avg = _addcmul_(square_avg.clone(), grad_avg, grad_avg, -1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    _addcdiv_(buf.mul_(momentum), grad, avg)
                    p.add_(buf, alpha=-lr)
                else:
                    _addcdiv_(p, grad, avg, -lr)
        return loss
