"""torch.optim.adagrad: Adagrad (lr_decay, initial_accumulator_value), PyTorch 1.13's update."""
import torch
from torch.optim.optimizer import Optimizer
from torch.optim._helpers import _addcmul_, _addcdiv_, _check


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False):
        _check(0.0 <= lr, "learning rate", lr)
        _check(0.0 <= lr_decay, "lr_decay value", lr_decay)
        _check(0.0 <= weight_decay, "weight_decay value", weight_decay)
        _check(0.0 <= initial_accumulator_value, "initial_accumulator_value value", initial_accumulator_value)
        _check(0.0 <= eps, "epsilon value", eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = torch.tensor(0.0)
                state["sum"] = torch.full_like(p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)

    def share_memory(self):
        pass

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, lr_decay, wd, eps, maximize = group["lr"], group["lr_decay"], group["weight_decay"], group["eps"], \
                group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                step_t = state["step"]
                step_t += 1
                step = step_t.item()
                grad = p.grad if not maximize else -p.grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                clr = lr / (1 + (step - 1) * lr_decay)
                _addcmul_(state["sum"], grad, grad, 1)
                std = state["sum"].sqrt().add_(eps)
                _addcdiv_(p, grad, std, -clr)
        return loss
