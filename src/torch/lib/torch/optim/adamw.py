"""torch.optim.adamw: AdamW, Adam with decoupled weight decay (param *= 1 - lr * weight_decay)."""
from torch.optim.adam import Adam, _check_adam_args
from torch.optim.optimizer import Optimizer


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        foreach=foreach, maximize=maximize, capturable=capturable)
        Optimizer.__init__(self, params, defaults)
