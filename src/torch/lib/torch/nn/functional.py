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


def one_hot(tensor, num_classes=-1):
    # (tensor[..., None] == arange(num_classes)) as int64, with ATen's checks
    if tensor.dtype != _torch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max()) + 1
    if tensor.numel() and int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if tensor.numel() and int(tensor.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return (tensor.unsqueeze(-1) == _torch.arange(num_classes)).long()


def _pad_index(n, before, after, mode):
    # source positions of a dim of size n padded by (before, after) in reflect/replicate/circular
    idx = []
    for i in range(-before, n + after):
        if mode == "reflect":
            j = i
            while j < 0 or j >= n:
                j = -j if j < 0 else 2 * (n - 1) - j
        elif mode == "replicate":
            j = min(max(i, 0), n - 1)
        else:
            j = i % n
        idx.append(j)
    return _torch.tensor(idx, dtype=_torch.int64)


def pad(input, pad, mode="constant", value=None):
    # pad pairs run from the last dim backwards: (left, right, top, bottom, ...)
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length too large")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    out = input
    for k in range(len(pad) // 2):
        d = input.dim() - 1 - k
        before, after = pad[2 * k], pad[2 * k + 1]
        n = out.shape[d]
        if mode == "constant":
            if before < 0:
                out = out.narrow(d, -before, out.shape[d] + before)
                before = 0
            if after < 0:
                out = out.narrow(d, 0, out.shape[d] + after)
                after = 0
            parts = []
            fill = 0 if value is None else value
            if before:
                shape = list(out.shape)
                shape[d] = before
                parts.append(_torch.full(shape, fill, dtype=out.dtype))
            parts.append(out)
            if after:
                shape = list(out.shape)
                shape[d] = after
                parts.append(_torch.full(shape, fill, dtype=out.dtype))
            out = _torch.cat(parts, d) if len(parts) > 1 else out
        else:
            if mode == "reflect" and (before >= n or after >= n):
                raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                                   f"but got: padding ({before}, {after}) at dimension {d} of input {list(input.shape)}")
            out = out.index_select(d, _pad_index(n, before, after, mode))
    return out
