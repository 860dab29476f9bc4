"""torch.nn.parameter: Parameter, the Tensor subclass that Module.__setattr__ registers."""
import torch
import torch._C._nn_module as _nn_module


class Parameter(torch.Tensor):
    """A Tensor that is a module parameter: assigning one to a Module attribute registers it in
    the module's _parameters.  Parameter(data) shares data's storage and requires grad."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = torch.empty(0)
        return torch.Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        # what torch.save writes for a parameter (hooks are never serialized)
        from collections import OrderedDict
        return (torch._utils._rebuild_parameter, (self.data, self.requires_grad, OrderedDict()))


_nn_module._set_parameter_class(Parameter)
