"""torch.nn.utils.stateless: functional_call(module, tensors, args) runs the module with some of its
parameters and buffers replaced by the given tensors (by qualified name) for that one call, then
restores them, as PyTorch 1.13's does; gradients flow to the given tensors."""
import contextlib


def _owner(module, name):
    *path, attr = name.split(".")
    for p in path:
        module = getattr(module, p)
    return module, attr


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers):
    saved = []
    try:
        for name, tensor in parameters_and_buffers.items():
            owner, attr = _owner(module, name)
            if attr in owner._parameters:
                saved.append((owner._parameters, attr, owner._parameters[attr]))
                owner._parameters[attr] = tensor
            elif attr in owner._buffers:
                saved.append((owner._buffers, attr, owner._buffers[attr]))
                owner._buffers[attr] = tensor
            else:
                saved.append((owner.__dict__, attr, owner.__dict__.get(attr, _MISSING)))
                owner.__dict__[attr] = tensor
        yield
    finally:
        for d, attr, old in reversed(saved):
            if old is _MISSING:
                del d[attr]
            else:
                d[attr] = old


_MISSING = object()


def functional_call(module, parameters_and_buffers, args, kwargs=None):
    if kwargs is None:
        kwargs = {}
    with _reparametrize_module(module, parameters_and_buffers):
        if isinstance(args, tuple):
            out = module(*args, **kwargs)
        else:
            out = module(args, **kwargs)
    return out
