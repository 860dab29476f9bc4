"""torch.nn.utils.clip_grad: clip_grad_norm_ (total p-norm of all gradients, error_if_nonfinite,
foreach accepted) and clip_grad_value_, with PyTorch 1.13's arithmetic: per-gradient norms
stacked and normed again, clip coefficient max_norm / (total + 1e-6) clamped to 1."""
import warnings

import torch

inf = float("inf")


def _grads(parameters):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _norm(t, norm_type):
    # torch.norm, as 1.13's clip_grad_norm_ calls it: its p=2 kernel adds the squares in ATen's
    # lane order with fused multiply-adds, which a (t * t).sum() would not (the printed norm and
    # every clipped gradient would differ in the last bit)
    return torch.norm(t, norm_type)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if len(grads) == 0:
        return torch.tensor(0.)
    with torch.no_grad():
        if norm_type == inf:
            norms = [g.detach().abs().max() for g in grads]
            total_norm = norms[0] if len(norms) == 1 else torch.stack(norms).max()
        else:
            total_norm = _norm(torch.stack([_norm(g.detach(), norm_type) for g in grads]), norm_type)
        if error_if_nonfinite and bool(torch.logical_or(total_norm.isnan(), total_norm.isinf())):
            raise RuntimeError(
                "The total norm of order {} for gradients from `parameters` is non-finite, so it cannot be clipped. "
                "To disable this error and scale the gradients by the non-finite norm anyway, set "
                "`error_if_nonfinite=False`".format(norm_type))
        clip_coef = max_norm / (total_norm + 1e-6)
        clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("torch.nn.utils.clip_grad_norm is now deprecated in favor of torch.nn.utils.clip_grad_norm_.",
                  stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    clip_value = float(clip_value)
    with torch.no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
