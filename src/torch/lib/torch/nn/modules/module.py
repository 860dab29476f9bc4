"""torch.nn.modules.module: the Module base class (in C: src/torch/module.c), the module-level
hook registration functions and the global hook dicts they fill."""
import functools
import weakref

import torch._C._nn_module as _C_module
from torch._C._nn_module import (
    Module,
    register_module_forward_pre_hook,
    register_module_forward_hook,
    register_module_full_backward_pre_hook,
    register_module_full_backward_hook,
    register_module_buffer_registration_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)

_global_forward_pre_hooks = _C_module._global_forward_pre_hooks
_global_forward_hooks = _C_module._global_forward_hooks
_global_forward_hooks_always_called = _C_module._global_forward_hooks_always_called
_global_forward_hooks_with_kwargs = _C_module._global_forward_hooks_with_kwargs
_global_backward_pre_hooks = _C_module._global_backward_pre_hooks
_global_backward_hooks = _C_module._global_backward_hooks
_global_buffer_registration_hooks = _C_module._global_buffer_registration_hooks
_global_module_registration_hooks = _C_module._global_module_registration_hooks
_global_parameter_registration_hooks = _C_module._global_parameter_registration_hooks

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_buffer_registration_hook", "register_module_module_registration_hook",
           "register_module_parameter_registration_hook", "Module"]


class _IncompatibleKeys(tuple):
    """(missing_keys, unexpected_keys), what load_state_dict returns; prints like PyTorch's
    namedtuple subclass."""

    def __new__(cls, missing_keys, unexpected_keys):
        return tuple.__new__(cls, (missing_keys, unexpected_keys))

    @property
    def missing_keys(self):
        return self[0]

    @property
    def unexpected_keys(self):
        return self[1]

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return ("_IncompatibleKeys(missing_keys=" + repr(self.missing_keys) +
                ", unexpected_keys=" + repr(self.unexpected_keys) + ")")

    __str__ = __repr__


class _WrappedHook:
    """A load-state-dict pre-hook as Module._register_load_state_dict_pre_hook stores it: the
    hook, called with the module first when registered with_module=True (held weakly)."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)


def _addindent(s_, numSpaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(numSpaces * " ") + line for line in s]
    return first + "\n" + "\n".join(s)
