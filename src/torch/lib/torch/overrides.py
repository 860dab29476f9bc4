"""torch.overrides: the __torch_function__ protocol.  The torch.* natives dispatch to it in C
(src/torch/overrides.c); Python-level torch functions use these helpers the way PyTorch's do:

    def relu(input, inplace=False):
        if has_torch_function_unary(input):
            return handle_torch_function(relu, (input,), input, inplace=inplace)
        ...
"""
import torch
from torch._C import _has_torch_function as has_torch_function, \
    _has_torch_function_unary as has_torch_function_unary, \
    _has_torch_function_variadic as has_torch_function_variadic

__all__ = ["has_torch_function", "handle_torch_function", "is_tensor_method_or_property",
           "is_tensor_like"]


def _overloaded_types(relevant_args):
    types = []
    for arg in relevant_args:
        t = type(arg)
        if isinstance(arg, torch.Tensor) or t in types:
            continue
        if hasattr(t, "__torch_function__"):
            types.append(t)
    return types


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls type(arg).__torch_function__(public_api, types, args, kwargs) for each overloading
    type until one returns something other than NotImplemented."""
    types = tuple(_overloaded_types(relevant_args))
    for t in types:
        result = t.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    func_name = "{}.{}".format(public_api.__module__, public_api.__name__)
    raise TypeError("no implementation found for '{}' on types that implement "
                    "__torch_function__: {}".format(func_name, [type(arg) for arg in relevant_args]))


def is_tensor_method_or_property(func):
    """True for the methods of torch.Tensor (what a Tensor method dispatches as func)."""
    name = getattr(func, "__name__", None)
    return name is not None and getattr(torch.Tensor, name, None) is func


def is_tensor_like(inp):
    return type(inp) is torch.Tensor or hasattr(inp, "__torch_function__")
