"""torch.optim.asgd: ASGD (averaged SGD), PyTorch 1.13's single-tensor update: SGD with a decaying
rate eta = lr / (1 + lambd * lr * step) ** alpha and a running average `ax` of the parameters
that starts after t0 steps (mu = 1 / max(1, step - t0))."""
import math

import torch
from torch.optim._helpers import _check
from torch.optim.optimizer import Optimizer


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False):
        _check(0.0 <= lr, "learning rate", lr)
        _check(0.0 <= weight_decay, "weight_decay value", weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
        # older checkpoints kept step, eta and mu as Python numbers
        for s in self.state.values():
            for key, make in (("step", lambda v: torch.tensor(float(v))), ("eta", torch.tensor),
                              ("mu", lambda v: torch.tensor(float(v)))):
                if key in s and not torch.is_tensor(s[key]):
                    s[key] = make(s[key])

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lambd, lr, t0, alpha = group["lambd"], group["lr"], group["t0"], group["alpha"]
            wd = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.)
                    state["eta"] = torch.tensor(lr)
                    state["mu"] = torch.tensor(1.)
                    state["ax"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                grad = p.grad if not group["maximize"] else -p.grad
                mu, ax, eta, step_t = state["mu"], state["ax"], state["eta"], state["step"]
                step_t += 1
                step = step_t.item()
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                p.mul_(1 - lambd * eta.item())
                p.add_(grad, alpha=-eta.item())
                if mu.item() != 1:
                    ax.add_(p.sub(ax).mul(mu))
                else:
                    ax.copy_(p)
                eta.copy_(torch.tensor(lr / math.pow((1 + lambd * lr * step), alpha)))
                mu.copy_(torch.tensor(1 / max(1, step - t0)))
        return loss
