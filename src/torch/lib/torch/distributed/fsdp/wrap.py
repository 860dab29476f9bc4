"""torch.distributed.fsdp.wrap: auto-wrap policies (by module type, by size) and the recursive
wrapping FullyShardedDataParallel applies with them, as PyTorch's.  A policy is called
policy(module, recurse, nonwrapped_numel): with recurse=True it says whether to look inside the
module, with recurse=False whether to wrap it (nonwrapped_numel: its parameters not yet wrapped).
Policies are called positionally so that 1.13's (module, recurse, unwrapped_params) and 2.x's
(module, recurse, nonwrapped_numel) spellings both work."""
import torch.nn as nn

__all__ = ["always_wrap_policy", "lambda_auto_wrap_policy", "transformer_auto_wrap_policy",
           "size_based_auto_wrap_policy", "ModuleWrapPolicy", "wrap", "enable_wrap"]


def always_wrap_policy(*args, **kwargs):
    """Wraps every module."""
    return True


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn):
    """Wraps the modules for which lambda_fn(module) is true."""
    if recurse:
        return True
    return lambda_fn(module)


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls):
    """Wraps the modules of the given types (the layers of a transformer)."""
    if recurse:
        return True
    return isinstance(module, tuple(transformer_layer_cls))


class ModuleWrapPolicy(object):
    """Wraps the modules of the given types (PyTorch 2.x's class form of the type policy)."""

    def __init__(self, module_classes):
        self._module_classes = tuple(module_classes)

    def __call__(self, module, recurse, nonwrapped_numel=0, *args, **kwargs):
        if recurse:
            return True
        return isinstance(module, self._module_classes)


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8), force_leaf_modules=None,
                                exclude_wrap_modules=None):
    """Wraps a module once the parameters not yet wrapped inside it reach min_num_params."""
    force_leaf_modules = (size_based_auto_wrap_policy.FORCE_LEAF_MODULES
                          if force_leaf_modules is None else force_leaf_modules)
    exclude_wrap_modules = (size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES
                            if exclude_wrap_modules is None else exclude_wrap_modules)
    is_large = nonwrapped_numel >= min_num_params
    if recurse:
        return is_large and not isinstance(module, tuple(force_leaf_modules))
    return is_large and not isinstance(module, tuple(exclude_wrap_modules))


size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = {nn.ModuleList, nn.ModuleDict}
size_based_auto_wrap_policy.FORCE_LEAF_MODULES = set(
    c for c in [getattr(nn, "MultiheadAttention", None)] if c is not None)


def _numel(module, ignored):
    return sum(p.numel() for p in module.parameters() if id(p) not in ignored)


def _recursive_wrap(module, auto_wrap_policy, wrapper_cls, skip_modules, skip_params, only_wrap_children=False,
                    **kwargs):
    """Wraps module's subtree bottom-up by the policy (kwargs go to wrapper_cls); returns (module
    or its wrapper, number of parameters wrapped).  skip_modules/skip_params: ignored ones."""
    if isinstance(module, wrapper_cls) or module in skip_modules:
        return module, 0
    num_params = _numel(module, skip_params)
    if auto_wrap_policy(module, True, num_params):
        total_wrapped = 0
        for name, child in list(module.named_children()):
            if child in skip_modules:
                continue
            wrapped_child, n = _recursive_wrap(child, auto_wrap_policy, wrapper_cls, skip_modules, skip_params,
                                               **kwargs)
            if wrapped_child is not child:
                setattr(module, name, wrapped_child)
            total_wrapped += n
        remainder = num_params - total_wrapped
        if not only_wrap_children and auto_wrap_policy(module, False, remainder):
            return wrapper_cls(module, **kwargs), num_params
        return module, total_wrapped
    return module, 0


class _ConfigAutoWrap(object):
    in_autowrap_context = False
    wrapper_cls = None
    kwargs = {}


class enable_wrap(object):
    """Context manager in which wrap(module) wraps with wrapper_cls and these keyword arguments."""

    def __init__(self, *, wrapper_cls, **wrapper_kwargs):
        self.wrapper_cls = wrapper_cls
        self.kwargs = wrapper_kwargs

    def __enter__(self):
        if _ConfigAutoWrap.in_autowrap_context:
            raise NotImplementedError("You are already within an autowrap context and we currently do not "
                                      "supported nested autowrap.")
        _ConfigAutoWrap.in_autowrap_context = True
        _ConfigAutoWrap.wrapper_cls = self.wrapper_cls
        _ConfigAutoWrap.kwargs = self.kwargs
        return self

    def __exit__(self, *args):
        _ConfigAutoWrap.in_autowrap_context = False
        _ConfigAutoWrap.wrapper_cls = None
        _ConfigAutoWrap.kwargs = {}


def wrap(module, **wrap_overrides):
    """Inside enable_wrap: the module wrapped with the context's wrapper; outside: the module."""
    if _ConfigAutoWrap.in_autowrap_context:
        kwargs = dict(_ConfigAutoWrap.kwargs)
        kwargs.update(wrap_overrides)
        return _ConfigAutoWrap.wrapper_cls(module, **kwargs)
    return module

