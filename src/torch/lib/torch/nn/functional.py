"""torch.nn.functional: the nn kernels of torch._C._nn plus the activations shared with Tensor.
The Python-level functions hand Proxies and other __torch_function__ objects to
handle_torch_function with PyTorch's arguments, so torch.fx records them as PyTorch does."""
from torch._C._nn import *

# ---- Python-level functions: PyTorch's signatures over the kernels above ----
import torch as _torch
from torch.overrides import has_torch_function_unary, handle_torch_function
from torch._C._nn import relu as _relu, leaky_relu as _leaky_relu, silu as _silu, softmax as _softmax, \
    log_softmax as _log_softmax, dropout as _dropout, mish as _mish, mish_ as _mish_


def relu(input, inplace=False):
    if has_torch_function_unary(input):
        return handle_torch_function(relu, (input,), input, inplace=inplace)
    if inplace:
        return input.relu_()
    return _relu(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if has_torch_function_unary(input):
        return handle_torch_function(leaky_relu, (input,), input, negative_slope=negative_slope, inplace=inplace)
    if inplace:
        return input.copy_(_leaky_relu(input, negative_slope))
    return _leaky_relu(input, negative_slope)


def silu(input, inplace=False):
    if has_torch_function_unary(input):
        return handle_torch_function(silu, (input,), input, inplace=inplace)
    if inplace:
        return input.copy_(_silu(input))
    return _silu(input)


def mish(input, inplace=False):
    if has_torch_function_unary(input):
        return handle_torch_function(mish, (input,), input, inplace=inplace)
    if inplace:
        return _mish_(input)
    return _mish(input)


def _get_softmax_dim(name, ndim, stacklevel):
    import warnings
    warnings.warn("Implicit dimension choice for " + name + " has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=stacklevel)
    if ndim == 0 or ndim == 1 or ndim == 3:
        return 0
    return 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if has_torch_function_unary(input):
        return handle_torch_function(softmax, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype)
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _softmax(input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if has_torch_function_unary(input):
        return handle_torch_function(log_softmax, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype)
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _log_softmax(input, dim)


def dropout(input, p=0.5, training=True, inplace=False):
    if has_torch_function_unary(input):
        return handle_torch_function(dropout, (input,), input, p=p, training=training, inplace=inplace)
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if inplace:
        return input.copy_(_dropout(input, p, training))
    return _dropout(input, p, training)


def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]"""
    lead = list(input1.shape[:-1])
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    tmp = _torch.matmul(weight, x2.t())                      # (out, in1, batch)
    out = (tmp.permute(2, 0, 1) * x1.unsqueeze(1)).sum(-1)  # (batch, out)
    if bias is not None:
        out = out + bias
    return out.reshape(lead + [weight.shape[0]])


def tanh(input):
    import warnings
    warnings.warn("nn.functional.tanh is deprecated. Use torch.tanh instead.")
    return input.tanh()


def sigmoid(input):
    import warnings
    warnings.warn("nn.functional.sigmoid is deprecated. Use torch.sigmoid instead.")
    return input.sigmoid()
