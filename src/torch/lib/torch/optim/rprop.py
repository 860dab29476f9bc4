"""torch.optim.rprop: Rprop (resilient backpropagation), PyTorch 1.13's single-tensor update: each
element's step size grows by etaplus while its gradient keeps its sign and shrinks by etaminus
when the sign flips (that element then does not move), clamped to step_sizes."""
import torch
from torch.optim._helpers import _check
from torch.optim.optimizer import Optimizer


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), foreach=None, maximize=False):
        _check(0.0 <= lr, "learning rate", lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("Invalid eta values: {}, {}".format(etas[0], etas[1]))
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize)
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
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["prev"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["step_size"] = torch.full_like(p.grad, group["lr"])
                state["step"] += 1
                grad = p.grad if not group["maximize"] else -p.grad
                prev, step_size = state["prev"], state["step_size"]
                # +1 where the gradient kept its sign, -1 where it flipped, 0 where either is 0
                sign = grad.mul(prev).sign()
                sign[sign.gt(0)] = etaplus
                sign[sign.lt(0)] = etaminus
                sign[sign.eq(0)] = 1
                step_size.mul_(sign).clamp_(step_size_min, step_size_max)
                grad = grad.clone(memory_format=torch.preserve_format)
                grad[sign.eq(etaminus)] = 0
                p.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
