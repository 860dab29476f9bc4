"""torch.optim.nadam: NAdam (momentum decay schedule), PyTorch 1.13's single-tensor update."""
import torch
from torch.optim.optimizer import Optimizer
from torch.optim._helpers import _addcmul_, _addcdiv_, _check


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 foreach=None):
        _check(0.0 <= lr, "learning rate", lr)
        _check(0.0 <= eps, "epsilon value", eps)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
        _check(0.0 <= weight_decay, "weight_decay value", weight_decay)
        _check(0.0 <= momentum_decay, "momentum_decay value", momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        foreach=foreach)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd, md = group["lr"], group["eps"], group["weight_decay"], group["momentum_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.)
                    state["mu_product"] = torch.tensor(1.)
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                exp_avg, exp_avg_sq, mu_product, step_t = state["exp_avg"], state["exp_avg_sq"], \
                    state["mu_product"], state["step"]
                step_t += 1
                step = step_t.item()
                bias_correction2 = 1 - beta2 ** step
                grad = p.grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                mu = beta1 * (1. - 0.5 * (0.96 ** (step * md)))
                mu_next = beta1 * (1. - 0.5 * (0.96 ** ((step + 1) * md)))
                mu_product *= mu
                # PyTorch 1.13 multiplies mu in twice here; kept so the numbers match it
                mu_product_next = mu_product * mu * mu_next
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
                _addcdiv_(p, grad, denom, -lr * (1. - mu) / (1. - mu_product.item()))
                _addcdiv_(p, exp_avg, denom, -lr * mu_next / (1. - mu_product_next.item()))
        return loss
