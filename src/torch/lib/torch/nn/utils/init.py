"""torch.nn.utils.init: skip_init(module_cls, *args, **kwargs) makes a module without running its
parameter initialisation.  PyTorch builds it on the meta device and allocates empty storage; here
it is built normally with the random state put back afterwards, so the default generator's
stream is as if nothing had been drawn (the values are unspecified in both)."""
import inspect

import torch


def skip_init(module_cls, *args, **kwargs):
    if not issubclass(module_cls, torch.nn.Module):
        raise RuntimeError('Expected a Module; got {}'.format(module_cls))
    if 'device' not in inspect.signature(module_cls).parameters:
        raise RuntimeError('Module must support a \'device\' arg to skip initialization')
    kwargs.pop('device', None)
    with torch.random.fork_rng():
        return module_cls(*args, **kwargs)
