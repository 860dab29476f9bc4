"""torch.nn.functional: the nn kernels of torch._C._nn plus the activations shared with Tensor.
The Python-level functions hand Proxies and other __torch_function__ objects to
handle_torch_function with PyTorch's arguments, so torch.fx records them as PyTorch does."""
from torch._C._nn import *

# ---- Python-level functions: PyTorch's signatures over the kernels above ----
import math
import torch as _torch
from torch.overrides import has_torch_function_unary, handle_torch_function
from torch._mathops import _inplace_source   # in-place decompositions compute from it (why: there)
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
        return leaky_relu_(input, negative_slope)
    return _leaky_relu(input, negative_slope)


def silu(input, inplace=False):
    if has_torch_function_unary(input):
        return handle_torch_function(silu, (input,), input, inplace=inplace)
    if inplace:
        return _named_inplace(input.copy_(_silu(_inplace_source(input))), "SiluBackward0")
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
    if dtype is not None:
        input = input.to(dtype)   # as ATen's softmax(input, dim, dtype): the cast first
    return _softmax(input, dim)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples of the Gumbel-softmax distribution: softmax((logits + g) / tau) with g ~ Gumbel(0, 1)
    drawn as -log(Exponential(1)); hard=True returns the one-hot argmax with the soft sample's
    gradient (straight-through), as PyTorch does."""
    if eps != 1e-10:
        import warnings
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    gumbels = -_torch.empty_like(logits, memory_format=_torch.contiguous_format).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = _torch.zeros_like(logits, memory_format=_torch.contiguous_format).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if has_torch_function_unary(input):
        return handle_torch_function(log_softmax, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype)
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _log_softmax(input, dim)


def dropout(input, p=0.5, training=True, inplace=False):
    if has_torch_function_unary(input):
        return handle_torch_function(dropout, (input,), input, p=p, training=training, inplace=inplace)
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if not training or p == 0.0 or input.numel() == 0:
        return input  # PyTorch 1.13's CPU dropout returns its input itself here (no copy, no node)
    if inplace:
        return _named_inplace(input.copy_(_dropout(input, p, training)), "MulBackward0")
    # PyTorch 1.13's CPU dropout is input * mask / (1 - p): MulBackward0
    return _named(_dropout(input, p, training), "MulBackward0", input)


def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]"""
    lead = list(input1.shape[:-1])
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    tmp = _torch.matmul(weight, x2.t())                      # (out, in1, batch)
    out = (tmp.permute(2, 0, 1) * x1.unsqueeze(1)).sum(-1)  # (batch, out)
    if bias is not None:
        # PyTorch's last op is the bias add (AddBackward0), otherwise the reshape of _trilinear's result
        return _named((out + bias).reshape(lead + [weight.shape[0]]), "AddBackward0", input1, input2, weight, bias)
    return out.reshape(lead + [weight.shape[0]])


def tanh(input):
    import warnings
    warnings.warn("nn.functional.tanh is deprecated. Use torch.tanh instead.")
    return input.tanh()


def sigmoid(input):
    import warnings
    warnings.warn("nn.functional.sigmoid is deprecated. Use torch.sigmoid instead.")
    return input.sigmoid()


# ---- convolution, pooling, padding (over torch._C._nn.im2col / col2im / max_pool2d_with_indices,
#      src/tensor/conv.c): a convolution is one im2col plus one GEMM, so its backward is col2im plus
#      GEMMs, recorded and compiled like any other chain of ops ----
from torch._C._nn import im2col as _im2col, col2im as _col2im, \
    max_pool2d_with_indices as _max_pool2d_with_indices, native_batch_norm as _native_batch_norm


def _ntuple(v, n, name="value"):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return tuple(v) * n
        return tuple(v)
    return (v,) * n


def _pair(v):
    return _ntuple(v, 2)


def _same_pads(kernel, dilation):
    """per-dim (before, after) padding of padding='same': the extra element goes after, as ATen's
    _convolution_mode does"""
    pads = []
    for k, d in zip(kernel, dilation):
        total = d * (k - 1)
        pads.append((total // 2, total - total // 2))
    return pads


def _conv_padding(padding, kernel, dilation, stride, fname):
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * len(kernel)
        if padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            return _same_pads(kernel, dilation)
        raise RuntimeError("Invalid padding string: '" + padding + "'")
    p = _ntuple(padding, len(kernel))
    return [(x, x) for x in p]


def _check_conv_input(input, weight, groups, nd, fname):
    if input.dim() != nd + 2 and input.dim() != nd + 1:
        raise RuntimeError("Expected " + str(nd + 1) + "D (unbatched) or " + str(nd + 2) +
                           "D (batched) input to " + fname + ", but got input of size: " + str(list(input.shape)))
    c = input.shape[-nd - 1]
    if c != weight.shape[1] * groups:
        batched = list(input.shape) if input.dim() == nd + 2 else [1] + list(input.shape)
        raise RuntimeError("Given groups=" + str(groups) + ", weight of size " + str(list(weight.shape)) +
                           ", expected input" + str(batched) + " to have " + str(weight.shape[1] * groups) +
                           " channels, but got " + str(c) + " channels instead")


def _check_kernel_fits(x, weight, pads, dilation, nd):
    sizes = [x.shape[2 + i] + pads[i][0] + pads[i][1] for i in range(2)]
    ks = [dilation[i] * (weight.shape[2 + i] - 1) + 1 for i in range(2)]
    if sizes[0] < ks[0] or sizes[1] < ks[1]:
        if nd == 1:
            sizes, ks = sizes[1:], ks[1:]
        raise RuntimeError("Calculated padded input size per channel: (" + " x ".join(str(s) for s in sizes) +
                           "). Kernel size: (" + " x ".join(str(k) for k in ks) +
                           "). Kernel size can't be greater than actual input size")


def _conv2d_core(x, weight, bias, stride, pads, dilation, groups, nd=2):
    N, C, H, W = x.shape
    O, Cg, kh, kw = weight.shape
    _check_kernel_fits(x, weight, pads, dilation, nd)
    if kh == 1 and kw == 1 and stride == (1, 1) and all(p == (0, 0) for p in pads):
        oh, ow = H, W
        cols = x.reshape(N, C, H * W)
    else:
        cols = _im2col(x, (kh, kw), dilation, (pads[0][0], pads[1][0], pads[0][1], pads[1][1]), stride)
        oh = (H + pads[0][0] + pads[0][1] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
        ow = (W + pads[1][0] + pads[1][1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    L = oh * ow
    if groups == 1:
        # one (O, K) x (K, N*L) GEMM: the weight is never expanded over the batch, and its
        # gradient is one GEMM too (no per-image products summed afterwards)
        K = Cg * kh * kw
        cols2d = cols.transpose(0, 1).reshape(K, N * L)
        out = _torch.mm(weight.reshape(O, K), cols2d).reshape(O, N, oh, ow).transpose(0, 1).contiguous()
        if bias is not None:
            out = out + bias.reshape(1, O, 1, 1)
        return out
    else:
        out = _torch.matmul(weight.reshape(groups, O // groups, Cg * kh * kw), cols.reshape(N, groups, Cg * kh * kw, L))
    out = out.reshape(N, O, oh, ow)
    if bias is not None:
        out = out + bias.reshape(1, O, 1, 1)
    return out


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if has_torch_function_unary(input):
        return handle_torch_function(conv2d, (input,), input, weight, bias, stride, padding, dilation, groups)
    _check_conv_input(input, weight, groups, 2, "conv2d")
    stride, dilation = _pair(stride), _pair(dilation)
    pads = _conv_padding(padding, weight.shape[2:], dilation, stride, "conv2d")
    if input.dim() == 3:
        return _conv2d_core(input.unsqueeze(0), weight, bias, stride, pads, dilation, groups).squeeze(0)
    return _named(_conv2d_core(input, weight, bias, stride, pads, dilation, groups), "ConvolutionBackward0", input,
                  weight, bias)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if has_torch_function_unary(input):
        return handle_torch_function(conv1d, (input,), input, weight, bias, stride, padding, dilation, groups)
    _check_conv_input(input, weight, groups, 1, "conv1d")
    stride, dilation = _ntuple(stride, 1), _ntuple(dilation, 1)
    pads = _conv_padding(padding, weight.shape[2:], dilation, stride, "conv1d")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    out = _conv2d_core(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, stride[0]), [(0, 0), pads[0]],
                       (1, dilation[0]), groups, 1).squeeze(2)
    # (an unbatched input's result is PyTorch's squeeze of the batched convolution: SqueezeBackward1)
    return out.squeeze(0) if unbatched else _named(out, "ConvolutionBackward0", input, weight, bias)


def _conv_transpose2d_core(x, weight, bias, stride, padding, output_padding, groups, dilation):
    N, Cin, H, W = x.shape
    _, Cog, kh, kw = weight.shape
    if Cin != weight.shape[0]:
        raise RuntimeError("Given transposed=1, weight of size " + str(list(weight.shape)) + ", expected input" +
                           str(list(x.shape)) + " to have " + str(weight.shape[0]) + " channels, but got " + str(Cin) +
                           " channels instead")
    Cout = Cog * groups
    oh = (H - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + output_padding[0] + 1
    ow = (W - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + output_padding[1] + 1
    xf = x.reshape(N, Cin, H * W)
    if groups == 1:
        cols = _torch.matmul(weight.reshape(Cin, Cout * kh * kw).t(), xf)
    else:
        wg = weight.reshape(groups, Cin // groups, Cog * kh * kw).transpose(1, 2)
        cols = _torch.matmul(wg, xf.reshape(N, groups, Cin // groups, H * W)).reshape(N, Cout * kh * kw, H * W)
    out = _col2im(cols, (oh, ow), (kh, kw), dilation, padding, stride)
    if bias is not None:
        out = out + bias.reshape(1, Cout, 1, 1)
    return out


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if has_torch_function_unary(input):
        return handle_torch_function(conv_transpose2d, (input,), input, weight, bias, stride, padding,
                                     output_padding, groups, dilation)
    args = (_pair(stride), _pair(padding), _pair(output_padding), groups, _pair(dilation))
    if input.dim() == 3:
        return _conv_transpose2d_core(input.unsqueeze(0), weight, bias, *args).squeeze(0)
    return _named(_conv_transpose2d_core(input, weight, bias, *args), "ConvolutionBackward0", input, weight, bias)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if has_torch_function_unary(input):
        return handle_torch_function(conv_transpose1d, (input,), input, weight, bias, stride, padding,
                                     output_padding, groups, dilation)
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    out = _conv_transpose2d_core(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, _ntuple(stride, 1)[0]),
                                 (0, _ntuple(padding, 1)[0]), (0, _ntuple(output_padding, 1)[0]), groups,
                                 (1, _ntuple(dilation, 1)[0])).squeeze(2)
    return out.squeeze(0) if unbatched else _named(out, "ConvolutionBackward0", input, weight, bias)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    if has_torch_function_unary(input):
        return handle_torch_function(unfold, (input,), input, kernel_size, dilation=dilation, padding=padding, stride=stride)
    if input.dim() == 3:
        return _im2col(input.unsqueeze(0), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)).squeeze(0)
    if input.dim() != 4:
        raise NotImplementedError("Input Error: Only 3D or 4D input Tensors are supported (got {}D)".format(input.dim()))
    return _im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    if has_torch_function_unary(input):
        return handle_torch_function(fold, (input,), input, output_size, kernel_size, dilation=dilation,
                                     padding=padding, stride=stride)
    if input.dim() == 2:
        return _col2im(input.unsqueeze(0), _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding),
                       _pair(stride)).squeeze(0)
    if input.dim() != 3:
        raise NotImplementedError("Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  "(got {}D)".format(input.dim()))
    return _col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad: constant padding through cat, reflect/replicate/circular through
    index_select with precomputed indices (so the backward is index_add)"""
    if has_torch_function_unary(input):
        return handle_torch_function(globals()["pad"], (input,), input, pad, mode=mode, value=value)
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length too large")
    if mode != "constant" and value is not None and value != 0:
        raise RuntimeError('Padding mode "' + mode + '" doesn\'t take in value argument')
    out = input
    for i in range(len(pad) // 2):
        d = input.dim() - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if before == 0 and after == 0:
            continue
        n = out.shape[d]
        if mode == "constant":
            if before < 0:
                out = out.narrow(d, -before, out.shape[d] + before)
                before = 0
            if after < 0:
                out = out.narrow(d, 0, out.shape[d] + after)
                after = 0
            parts = []
            fill = 0.0 if value is None else value
            if before > 0:
                s = list(out.shape); s[d] = before
                parts.append(_torch.full(s, fill, dtype=out.dtype))
            parts.append(out)
            if after > 0:
                s = list(out.shape); s[d] = after
                parts.append(_torch.full(s, fill, dtype=out.dtype))
            out = _torch.cat(parts, d)
            continue
        if mode == "reflect":
            if before >= n or after >= n:
                # ATen numbers the argument by the pad pair; reflection_pad2d names the input by its rank
                shown = str(input.dim()) if len(pad) == 4 else str(list(input.shape))
                raise RuntimeError("Argument #" + str(4 + 2 * i) + ": Padding size should be less than the "
                                   "corresponding input dimension, but got: padding (" + str(before) + ", " +
                                   str(after) + ") at dimension " + str(d) + " of input " + shown)
            idx = [before - j for j in range(before)] + list(range(n)) + [n - 2 - j for j in range(after)]
        elif mode == "replicate":
            idx = [0] * before + list(range(n)) + [n - 1] * after
        elif mode == "circular":
            if before > n or after > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            idx = [n - before + j for j in range(before)] + list(range(n)) + [j for j in range(after)]
        else:
            raise NotImplementedError("Unrecognised padding mode " + mode)
        out = out.index_select(d, _torch.tensor(idx))
    if out is input:
        out = input.clone()  # all pads zero: PyTorch's padding ops still return a new tensor
    nd = len(pad) // 2
    # PyTorch's node: constant_pad_nd, reflection/replication_padNd, circular's slice copies (CopySlices)
    name = {"constant": "ConstantPadNdBackward0", "reflect": "ReflectionPad%dDBackward0" % nd,
            "replicate": "ReplicationPad%dDBackward0" % nd, "circular": "CopySlices"}.get(mode)
    return _named(out, name, input) if name else out


def _pool_stride(stride, kernel, n):
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        return kernel
    return _ntuple(stride, n)


def _max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode):
    k = _pair(kernel_size)
    s = _pool_stride(stride, k, 2)
    if input.dim() == 3:
        v, i = _max_pool2d_with_indices(input.unsqueeze(0), k, s, _pair(padding), _pair(dilation), ceil_mode)
        return v.squeeze(0), i.squeeze(0)
    if input.dim() != 4:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    return _max_pool2d_with_indices(input, k, s, _pair(padding), _pair(dilation), ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if has_torch_function_unary(input):
        return handle_torch_function(max_pool2d, (input,), input, kernel_size, stride=stride, padding=padding,
                                     dilation=dilation, ceil_mode=ceil_mode, return_indices=return_indices)
    v, i = _max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (v, i) if return_indices else v


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if has_torch_function_unary(input):
        return handle_torch_function(max_pool1d, (input,), input, kernel_size, stride=stride, padding=padding,
                                     dilation=dilation, ceil_mode=ceil_mode, return_indices=return_indices)
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d() Expected 2D or 3D input tensor, but got " + str(list(input.shape)))
    k = _ntuple(kernel_size, 1)[0]
    s = _pool_stride(stride, (k,), 1)[0]
    v, i = _max_pool2d_impl(input.unsqueeze(-2), (1, k), (1, s), (0, _ntuple(padding, 1)[0]),
                            (1, _ntuple(dilation, 1)[0]), ceil_mode)
    v, i = v.squeeze(-2), i.squeeze(-2)
    return (v, i) if return_indices else v


def _pool_out(n, k, p, s, ceil_mode):
    num = n + 2 * p - k + (s - 1 if ceil_mode else 0)
    o = num // s + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1
    return o


def _avg_pool2d_core(x, k, s, p, ceil_mode, count_include_pad, divisor_override):
    N, C, H, W = x.shape
    for i in range(2):
        if p[i] > k[i] // 2:
            raise RuntimeError("pad should be at most half of kernel size, but got pad=" + str(p[i]) +
                               " and kernel_size=" + str(k[i]))
    oh, ow = _pool_out(H, k[0], p[0], s[0], ceil_mode), _pool_out(W, k[1], p[1], s[1], ceil_mode)
    # (conditional expressions, not max(): the tracer branches on symbolic kernel sizes read from
    # module attributes, where a builtin on them would break the graph)
    pb = (oh - 1) * s[0] + k[0] - H - p[0]
    pb = p[0] if p[0] > pb else pb
    pr = (ow - 1) * s[1] + k[1] - W - p[1]
    pr = p[1] if p[1] > pr else pr
    cols = _im2col(x, k, (1, 1), (p[0], p[1], pb, pr), s)
    kk = k[0] * k[1]
    cols = cols.reshape(N, C, kk, -1)
    if cols.shape[3] != oh * ow:
        cols = cols.narrow(3, 0, oh * ow)
    total = cols.sum(2)
    if divisor_override:
        out = total / divisor_override
    elif count_include_pad and not ceil_mode:
        out = total / kk
    else:
        div = []
        for i in range(oh):
            hs = i * s[0] - p[0]
            he = min(hs + k[0], H + p[0])
            for j in range(ow):
                ws = j * s[1] - p[1]
                we = min(ws + k[1], W + p[1])
                size = (he - hs) * (we - ws)
                if not count_include_pad:
                    size = (min(he, H) - max(hs, 0)) * (min(we, W) - max(ws, 0))
                div.append(float(size))
        out = total / _torch.tensor(div)
    return out.reshape(N, C, oh, ow)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    if has_torch_function_unary(input):
        return handle_torch_function(avg_pool2d, (input,), input, kernel_size, stride, padding, ceil_mode,
                                     count_include_pad, divisor_override)
    k = _pair(kernel_size)
    s = _pool_stride(stride, k, 2)
    if input.dim() == 3:
        out = _avg_pool2d_core(input.unsqueeze(0), k, s, _pair(padding), ceil_mode, count_include_pad,
                               divisor_override).squeeze(0)
    else:
        out = _avg_pool2d_core(input, k, s, _pair(padding), ceil_mode, count_include_pad, divisor_override)
    return _named(out, "AvgPool2DBackward0", input)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    if has_torch_function_unary(input):
        return handle_torch_function(avg_pool1d, (input,), input, kernel_size, stride, padding, ceil_mode, count_include_pad)
    k = _ntuple(kernel_size, 1)[0]
    s = _pool_stride(stride, (k,), 1)[0]
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    out = _avg_pool2d_core(x.unsqueeze(2), (1, k), (1, s), (0, _ntuple(padding, 1)[0]), ceil_mode,
                           count_include_pad, None).squeeze(2)
    return out.squeeze(0) if unbatched else out


def _adaptive_ranges(n, o):
    return [((i * n) // o, -((-(i + 1) * n) // o)) for i in range(o)]


def adaptive_avg_pool2d(input, output_size):
    if has_torch_function_unary(input):
        return handle_torch_function(adaptive_avg_pool2d, (input,), input, output_size)
    osz = _pair(output_size)
    H, W = input.shape[-2], input.shape[-1]
    oh = H if osz[0] is None else osz[0]
    ow = W if osz[1] is None else osz[1]
    if oh == 1 and ow == 1:
        return input.mean((-2, -1), keepdim=True)   # as ATen's adaptive_avg_pool2d (MeanBackward1)
    if H % oh == 0 and W % ow == 0:
        return _named(avg_pool2d(input, (H // oh, W // ow)), "AdaptiveAvgPool2DBackward0", input)
    rows = []
    for hs, he in _adaptive_ranges(H, oh):
        row = [input[..., hs:he, ws:we].mean((-2, -1)) for ws, we in _adaptive_ranges(W, ow)]
        rows.append(_torch.stack(row, -1))
    return _named(_torch.stack(rows, -2), "AdaptiveAvgPool2DBackward0", input)


def adaptive_avg_pool1d(input, output_size):
    if has_torch_function_unary(input):
        return handle_torch_function(adaptive_avg_pool1d, (input,), input, output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _ntuple(output_size, 1)[0])).squeeze(-2)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    osz = _pair(output_size)
    H, W = input.shape[-2], input.shape[-1]
    oh = H if osz[0] is None else osz[0]
    ow = W if osz[1] is None else osz[1]
    if H % oh == 0 and W % ow == 0:
        return _max_pool2d_impl(input, (H // oh, W // ow), (H // oh, W // ow), 0, 1, False)
    vrows, irows = [], []
    for hs, he in _adaptive_ranges(H, oh):
        vs, ids = [], []
        for ws, we in _adaptive_ranges(W, ow):
            win = input[..., hs:he, ws:we]
            v, i = win.reshape(list(win.shape[:-2]) + [-1]).max(-1)
            ww = we - ws
            ids.append((i // ww + hs) * W + (i % ww + ws))
            vs.append(v)
        vrows.append(_torch.stack(vs, -1))
        irows.append(_torch.stack(ids, -1))
    return _torch.stack(vrows, -2), _torch.stack(irows, -2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    if has_torch_function_unary(input):
        return handle_torch_function(adaptive_max_pool2d, (input,), input, output_size, return_indices=return_indices)
    v, i = adaptive_max_pool2d_with_indices(input, output_size)
    v = _named(v, "AdaptiveMaxPool2DBackward0", input)
    return (v, i) if return_indices else v


def pixel_shuffle(input, upscale_factor):
    r = upscale_factor
    *lead, C, H, W = input.shape
    if C % (r * r) != 0:
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           "upscale_factor, but input.size(-3)=" + str(C) + " is not divisible by " + str(r * r))
    oc = C // (r * r)
    x = input.reshape(lead + [oc, r, r, H, W])
    n = len(lead)
    x = x.permute(list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    out = x.reshape(lead + [oc, H * r, W * r])
    if r == 1:
        out = out.clone()   # PyTorch's result is a new tensor (the reshape alone is a view of input)
    return _named(out, "PixelShuffleBackward0", input)


def pixel_unshuffle(input, downscale_factor):
    r = downscale_factor
    *lead, C, H, W = input.shape
    n = len(lead)
    x = input.reshape(lead + [C, H // r, r, W // r, r])
    x = x.permute(list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    out = x.reshape(lead + [C * r * r, H // r, W // r])
    if r == 1:
        out = out.clone()
    return _named(out, "PixelUnshuffleBackward0", input)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """nearest and (bi)linear resampling by index_select / weighted sums of gathered rows and
    columns (PyTorch's source-index formulas), differentiable through those ops"""
    if has_torch_function_unary(input):
        return handle_torch_function(interpolate, (input,), input, size=size, scale_factor=scale_factor, mode=mode,
                                     align_corners=align_corners, recompute_scale_factor=recompute_scale_factor)
    nd = input.dim() - 2
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = list(input.shape[2:])
    if size is not None:
        out_sizes = list(_ntuple(size, nd))
        scales = [None] * nd
    else:
        sf = _ntuple(scale_factor, nd)
        out_sizes = [int(in_sizes[i] * sf[i]) for i in range(nd)]
        scales = [None] * nd if recompute_scale_factor else list(sf)
    if antialias:
        if not (mode in ("bilinear", "bicubic") and input.dim() == 4):
            raise ValueError("Anti-alias option is only supported for bilinear and bicubic modes")
        raise NotImplementedError("interpolate(antialias=True) is not supported by Ember")
    if mode == "bicubic" and nd == 2:
        return _named(_upsample_bicubic2d(input, out_sizes, bool(align_corners), scales), "UpsampleBicubic2DBackward1",
                      input)
    if mode == "area" and nd in (1, 2):
        # PyTorch's area mode is adaptive average pooling to the output size
        pool = adaptive_avg_pool1d if nd == 1 else adaptive_avg_pool2d
        return pool(input, out_sizes)
    out = input
    for i in range(nd):
        d = 2 + i
        n, o = in_sizes[i], out_sizes[i]
        if mode == "nearest":
            scale = (1.0 / scales[i]) if scales[i] else n / o
            idx = [min(int(j * scale), n - 1) for j in range(o)]
            out = out.index_select(d, _torch.tensor(idx))
        elif mode == "nearest-exact":
            # ATen's nearest_neighbor_exact_compute_source_index, in float as it computes it
            scale = _f32(1.0 / scales[i]) if scales[i] else _f32(_f32(float(n)) / o)
            idx = [min(math.floor(_f32(_f32(j + 0.5) * scale)), n - 1) for j in range(o)]
            out = out.index_select(d, _torch.tensor(idx))
        elif mode in ("linear", "bilinear", "trilinear"):
            ac = bool(align_corners)
            if ac:
                scale = (n - 1) / (o - 1) if o > 1 else 0.0
            else:
                scale = (1.0 / scales[i]) if scales[i] else n / o
            i0, i1, w1 = [], [], []
            for j in range(o):
                src = j * scale if ac else max(scale * (j + 0.5) - 0.5, 0.0)
                a = min(int(src), n - 1)
                b = a + 1 if a < n - 1 else a
                i0.append(a)
                i1.append(b)
                w1.append(src - a)
            shape = [1] * out.dim()
            shape[d] = o
            w1t = _torch.tensor(w1, dtype=out.dtype).reshape(shape)   # float64 input: float64 weights
            lo = out.index_select(d, _torch.tensor(i0))
            hi = out.index_select(d, _torch.tensor(i1))
            out = lo * (1 - w1t) + hi * w1t
        else:
            raise NotImplementedError("interpolate mode '" + mode + "' is not supported by Ember")
    # PyTorch's node: the upsample_*d kernel of the mode and rank (the .vec overloads: Backward1)
    if mode == "nearest" and 1 <= nd <= 3:
        return _named(out, "UpsampleNearest%dDBackward1" % nd, input)
    if mode == "nearest-exact" and 1 <= nd <= 3:
        return _named(out, "UpsampleNearestExact%dDBackward1" % nd, input)
    if (mode, nd) in (("linear", 1), ("bilinear", 2), ("trilinear", 3)):
        return _named(out, {1: "UpsampleLinear1DBackward1", 2: "UpsampleBilinear2DBackward1",
                            3: "UpsampleTrilinear3DBackward1"}[nd], input)
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


# ---- normalization (compositions: mean/var over the reduced dims, then the affine map) ----

def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if has_torch_function_unary(input):
        return handle_torch_function(batch_norm, (input,), input, running_mean, running_var, weight=weight,
                                     bias=bias, training=training, momentum=momentum, eps=eps)
    C = input.shape[1]
    if training and input.numel() // C == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input size " + str(input.shape))
    dt = input.dtype
    if (dt == _torch.float32 or dt == _torch.float64) and all(
            t is None or t.dtype == dt for t in (weight, bias, running_mean, running_var)):
        # one fused op (src/tensor/batch_norm.c), PyTorch's native_batch_norm: statistics, the
        # affine transform and the running-statistics update in C, one backward node
        return _native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                  0.0 if momentum is None else momentum, eps)[0]
    dims = [0] + list(range(2, input.dim()))
    shape = [1, C] + [1] * (input.dim() - 2)
    if training:
        n = input.numel() // C
        mean = input.mean(dims)
        var = input.var(dims, unbiased=False)
        if running_mean is not None:
            with _torch.no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
        if running_var is not None:
            with _torch.no_grad():
                running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / (n - 1)))
    else:
        mean, var = running_mean, running_var
    # per-channel alpha = w / sqrt(var + eps), beta = b - mean * alpha, then one multiply-add over
    # the input: PyTorch's CPU kernel (batch_norm_cpu_transform_input) computes exactly this
    alpha = _torch.rsqrt(var + eps)
    if weight is not None:
        alpha = alpha * weight
    beta = -mean * alpha
    if bias is not None:
        beta = beta + bias
    return input * alpha.reshape(shape) + beta.reshape(shape)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """ATen's instance_norm: batch_norm over the input viewed as one sample of N * C channels
    (weight, bias and running stats repeated N times; the running stats then take the mean over
    the samples), so the values, gradients and grad_fn are PyTorch's"""
    if has_torch_function_unary(input):
        return handle_torch_function(instance_norm, (input,), input, running_mean, running_var, weight=weight,
                                     bias=bias, use_input_stats=use_input_stats, momentum=momentum, eps=eps)
    if use_input_stats:
        spatial = 1
        for n in input.shape[2:]:
            spatial *= n
        if spatial == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input size {}".format(
                input.size()))
    b, c = input.shape[0], input.shape[1]
    rep = [None if t is None else t.repeat(b) for t in (weight, bias, running_mean, running_var)]
    out = batch_norm(input.contiguous().view([1, b * c] + list(input.shape[2:])), rep[2], rep[3], rep[0], rep[1],
                     use_input_stats, momentum, eps)
    with _torch.no_grad():
        if running_mean is not None:
            running_mean.copy_(rep[2].view(b, c).mean(0, False))
        if running_var is not None:
            running_var.copy_(rep[3].view(b, c).mean(0, False))
    return out.view(input.shape)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if has_torch_function_unary(input):
        return handle_torch_function(group_norm, (input,), input, num_groups, weight=weight, bias=bias, eps=eps)
    N, C = input.shape[0], input.shape[1]
    if C % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           "shape " + str(input.shape) + " and num_groups=" + str(num_groups))
    x = input.reshape(N, num_groups, -1)
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    out = ((x - mean) * _torch.rsqrt(var + eps)).reshape(input.shape)
    shape = [1, C] + [1] * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return _named(out, "NativeGroupNormBackward0", input, weight, bias)


# ---- activations (compositions of the table's pointwise ops) ----

def _inplace(input, out, inplace):
    return input.copy_(out) if inplace else out




def elu(input, alpha=1.0, inplace=False):
    out = _inplace(input, _torch.where(input > 0, input, (input.exp() - 1) * alpha), inplace)
    return _named_inplace(out, "EluBackward1") if inplace else _named(out, "EluBackward0", input)


def selu(input, inplace=False):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    out = _inplace(input, _torch.where(input > 0, input * scale, (input.exp() - 1) * (alpha * scale)), inplace)
    return _named_inplace(out, "EluBackward1") if inplace else _named(out, "EluBackward0", input)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    out = _inplace(input, _torch.where(input > 0, input, ((input / alpha).exp() - 1) * alpha), inplace)
    return _named_inplace(out, "CeluBackward1") if inplace else _named(out, "CeluBackward0", input)


def softplus(input, beta=1, threshold=20):
    scaled = input * beta
    return _named(_torch.where(scaled > threshold, input, (scaled.exp() + 1).log() / beta), "SoftplusBackward0", input)


def softsign(input):
    return input / (input.abs() + 1)


def logsigmoid(input):
    # -softplus(-x), computed as ATen does, min(x, 0) - log1p(exp(-|x|)), so it never overflows. At x == 0
    # clamp's gradient is 1 and |x|'s is 0, where the derivative 1 - sigmoid(0) is 1/2: a zero-valued
    # term carries the missing -1/2 there (where() so an infinite x elsewhere makes no NaN)
    at0 = _torch.where(input == 0, input * -0.5, _torch.zeros_like(input))
    return _named(input.clamp(max=0) + at0 - (-input.abs()).exp().log1p(), "LogSigmoidBackward0", input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return hardtanh_(input, min_val, max_val)
    return _named(input.clamp(min_val, max_val), "HardtanhBackward0", input)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input, inplace=False):
    out = _inplace(input, (input + 3).clamp(0, 6) / 6, inplace)
    return _named_inplace(out, "HardsigmoidBackward0") if inplace else _named(out, "HardsigmoidBackward0", input)


def hardswish(input, inplace=False):
    x = _inplace_source(input) if inplace else input
    out = _inplace(input, x * (x + 3).clamp(0, 6) / 6, inplace)
    return _named_inplace(out, "HardswishBackward0") if inplace else _named(out, "HardswishBackward0", input)


def tanhshrink(input):
    return input - input.tanh()


def threshold(input, threshold, value, inplace=False):
    # x <= threshold ? value : x, as ATen's kernel (NaN is kept, not replaced)
    if inplace:
        return threshold_(input, threshold, value)
    return _named(_torch.where(input <= threshold, _torch.full_like(input, value), input), "ThresholdBackward0", input)


def hardshrink(input, lambd=0.5):
    return _named(_torch.where(input.abs() > lambd, input, _torch.zeros_like(input)), "HardshrinkBackward0", input)


def softshrink(input, lambd=0.5):
    return _named(_torch.where(input > lambd, input - lambd, _torch.where(input < -lambd, input + lambd,
                                                                           _torch.zeros_like(input))),
                  "SoftshrinkBackward0", input)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if input.shape[dim] % 2 != 0:
        raise RuntimeError("Halving dimension must be even, but dimension " + str(dim % input.dim()) +
                           " is size " + str(input.shape[dim]))
    a, b = input.chunk(2, dim)
    return _named(a * b.sigmoid(), "GluBackward0", input)


def prelu(input, weight):
    if weight.numel() != 1 and input.dim() >= 2:
        shape = [1] * input.dim()
        shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return _named(_torch.where(input >= 0, input, weight * input), "PreluBackward0", input, weight)


def rrelu(input, lower=1. / 8, upper=1. / 3, training=False, inplace=False):
    if has_torch_function_unary(input):
        return handle_torch_function(rrelu, (input,), input, lower=lower, upper=upper, training=training,
                                     inplace=inplace)
    return _rrelu(input, lower, upper, training, inplace, None)


def rrelu_(input, lower=1. / 8, upper=1. / 3, training=False):
    return _rrelu(input, lower, upper, training, True, None)


def _view(t, shape):
    """t.view(shape) where PyTorch's decomposition views (ViewBackward0), reshape if t cannot be"""
    return t.view(shape) if t.is_contiguous() else t.reshape(shape)


def _named_inplace(t, name):
    """t after the in-place op decomposed here: its new grad_fn named as PyTorch's in-place node
    (EluBackward1, ...); not for a view, whose grad_fn PyTorch regenerates, nor without grad mode
    (no node was recorded: t's grad_fn is still an earlier op's)"""
    if not _torch._C._is_compiling() and isinstance(t, _torch.Tensor) and t._base is None and _torch.is_grad_enabled():
        _torch._C._name_grad_fn(t, name)
    return t


def _named(out, name, *inputs):
    """out, its grad_fn named as the one node PyTorch records for the op this function decomposes
    (torch._C._name_grad_fn says when it applies); compiled code keeps the graph's own nodes"""
    if not _torch._C._is_compiling() and isinstance(out, _torch.Tensor):   # (not an fx Proxy)
        _torch._C._name_grad_fn(out, name, *inputs)
    return out


def _rrelu(input, lower, upper, training, inplace, generator):
    """ATen's rrelu_with_noise.  Evaluation: leaky_relu with the mean slope.  Training: each element
    <= 0 (in row-major order) is multiplied by a slope drawn uniform(lower, upper) as a double from
    the generator's 64-bit stream (a float64 uniform_ draws the same way, one word per element),
    then rounded to the input's compute type; the others by 1.  The slopes are the saved noise:
    the gradient is grad * noise."""
    if float(lower) > float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        # (PyTorch's evaluation is rrelu_with_noise too: RreluWithNoiseBackward0)
        out = leaky_relu(input, (lower + upper) / 2, inplace)
        return _named_inplace(out, "RreluWithNoiseBackward1") if inplace else _named(out, "RreluWithNoiseBackward0", input)
    opmath = _torch.float64 if input.dtype == _torch.float64 else _torch.float32
    # the bounds are converted to the compute type first (opmath_t lower = lower_.to<opmath_t>())
    lo = _torch.tensor(lower, dtype=opmath).item()
    hi = _torch.tensor(upper, dtype=opmath).item()
    with _torch.no_grad():
        neg = input <= 0
        noise = _torch.ones_like(input, dtype=opmath)
        k = int(neg.sum())
        if k:
            noise[neg] = _torch.empty(k, dtype=_torch.float64).uniform_(lo, hi, generator=generator).to(opmath)
    if input.dtype != opmath:   # half types: the product in float, rounded once
        out = (input.to(opmath) * noise).to(input.dtype)
        return input.copy_(out) if inplace else out
    if inplace:
        return _named_inplace(input.mul_(noise), "RreluWithNoiseBackward1")
    return _named(input * noise, "RreluWithNoiseBackward0", input)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return _softmax(-input if dtype is None else (-input).to(dtype), dim)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    if p == 2.0 or p == 2:
        n = (input * input).sum(dim, keepdim=True).sqrt()
    elif p == 1:
        n = input.abs().sum(dim, keepdim=True)
    else:
        n = (input.abs() ** p).sum(dim, keepdim=True) ** (1.0 / p)
    denom = n.clamp(min=eps).expand_as(input)
    if out is None:
        return input / denom
    return _torch.div(input, denom, out=out)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    d = x1 - x2 + eps
    if p == 2.0 or p == 2:
        out = (d * d).sum(-1, keepdim=keepdim).sqrt()
    elif p == 1:
        out = d.abs().sum(-1, keepdim=keepdim)
    else:
        out = (d.abs() ** p).sum(-1, keepdim=keepdim) ** (1.0 / p)
    return _named(out, "NormBackward1", x1, x2)   # PyTorch: norm(x1 - x2 + eps, p, -1)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    w12 = (x1 * x2).sum(dim)
    w1 = (x1 * x1).sum(dim)
    w2 = (x2 * x2).sum(dim)
    n12 = (w1 * w2).clamp(min=eps * eps).sqrt()
    return _named(w12 / n12, "SumBackward1", x1, x2)   # PyTorch: (x1 / n1 * x2 / n2).sum(dim)


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


# ---- losses (compositions; reduction as PyTorch's) ----

def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(reduction + " is not a valid value for reduction")


def _reduction_arg(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        from torch.nn.modules.loss import _legacy_reduction
        return _legacy_reduction(size_average, reduce)
    return reduction


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _reduce((input - target).abs(), _reduction_arg(size_average, reduce, reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    d = (input - target).abs()
    if beta == 0.0:
        out = _reduce(d, _reduction_arg(size_average, reduce, reduction))
    else:
        loss = _torch.where(d < beta, d * d * 0.5 / beta, d - 0.5 * beta)
        out = _reduce(loss, _reduction_arg(size_average, reduce, reduction))
    return _named(out, "SmoothL1LossBackward0", input, target)


def huber_loss(input, target, reduction="mean", delta=1.0):
    d = (input - target).abs()
    loss = _torch.where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    return _named(_reduce(loss, reduction), "HuberLossBackward0", input, target)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction_arg(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError("Using a target size ({}) that is different to the input size ({}) is deprecated. "
                         "Please ensure they have the same size.".format(target.shape, input.shape))
    loss = -(target * input.log().clamp(min=-100) + (1 - target) * (1 - input).log().clamp(min=-100))
    if weight is not None:
        loss = loss * weight
    return _named(_reduce(loss, reduction), "BinaryCrossEntropyBackward0", input, target, weight)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    reduction = _reduction_arg(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError("Target size ({}) must be the same as input size ({})".format(target.shape, input.shape))
    max_val = (-input).clamp(min=0)
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * (((-max_val).exp() + (-input - max_val).exp()).log() + max_val)
    else:
        loss = (1 - target) * input + max_val + ((-max_val).exp() + (-input - max_val).exp()).log()
    if weight is not None:
        loss = loss * weight
    return _named(_reduce(loss, reduction), "BinaryCrossEntropyWithLogitsBackward0", input, target, weight, pos_weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _reduction_arg(size_average, reduce, reduction)
    if reduction == "mean":
        import warnings
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    return _kl_div(input, target, reduction, log_target)


def _kl_div(input, target, reduction, log_target):
    """ATen's kl_div (torch.kl_div) after F.kl_div's argument handling"""
    if log_target:
        loss = target.exp() * (target - input)
    else:
        safe = _torch.where(target > 0, target, _torch.ones_like(target))
        loss = _torch.where(target > 0, target * (safe.log() - input), _torch.zeros_like(target))
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() != 0 else loss.sum()
    if reduction == "none" and not log_target:
        return _named(loss, "SubBackward0", input, target)   # ATen: xlogy(target, target) - target * input
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction_arg(size_average, reduce, reduction)
    eps = 1e-12
    d = input1.dim() - 1
    prod = (input1 * input2).sum(d)
    m1 = (input1 * input1).sum(d) + eps
    m2 = (input2 * input2).sum(d) + eps
    cos = prod / (m1 * m2).sqrt()
    zeros = _torch.zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp(min=0)
    loss = _torch.where(target == 1, pos, zeros) + _torch.where(target == -1, neg, zeros)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction_arg(size_average, reduce, reduction)
    return _reduce(_named((-target * (input1 - input2) + margin).clamp(min=0), "ClampMinBackward0", input1, input2),
                   reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction_arg(size_average, reduce, reduction)
    zeros = _torch.zeros_like(input)
    loss = _torch.where(target != 1, (margin - input).clamp(min=0), zeros) + _torch.where(target != -1, input, zeros)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction_arg(size_average, reduce, reduction)
    return _named(_reduce(((-target * input).exp() + 1).log(), reduction), "SoftMarginLossBackward0", input, target)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    reduction = _reduction_arg(size_average, reduce, reduction)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _torch.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(_named((margin + d_pos - d_neg).clamp(min=0), "ClampMinBackward0", anchor, positive, negative),
                   reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction = _reduction_arg(size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        # Stirling's approximation of log(target!), added where target > 1 (ATen's poisson_nll_loss)
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


from torch._C._nn import cross_entropy as _cross_entropy, nll_loss as _nll_loss


def _nll_nd(logp, target, weight, ignore_index, reduction):
    """ATen's nll_loss_nd for an input (N, C, d1, ...): nll_loss2d, whose cascade sums run over the
    positions (n, d1, ...) in order, as the 2-D kernel's run over rows; so the rows (N * d, C)
    in that order give its bits (and 'none' gives back the target's shape)."""
    n, c = logp.shape[0], logp.shape[1]
    want = [n] + list(logp.shape[2:])
    if list(target.shape) != want:
        raise RuntimeError(f"Expected target size {want}, got {list(target.shape)}")
    rows = logp.movedim(1, -1).reshape(-1, c)
    out = _nll_loss(rows, target.reshape(-1), weight, None, ignore_index, None, reduction)
    # ATen: nll_loss2d (NllLoss2DBackward0) on 4-D input; other ranks through a (N, C, 1, -1) view,
    # their 'none' result viewed back (ViewBackward0)
    if reduction == "none" and logp.dim() != 4:
        return _view(out, target.shape)
    return _named(out.reshape(target.shape) if reduction == "none" else out, "NllLoss2DBackward0", logp, weight)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    if has_torch_function_unary(input):
        return handle_torch_function(nll_loss, (input,), input, target, weight=weight, size_average=size_average,
                                     ignore_index=ignore_index, reduce=reduce, reduction=reduction)
    if input.dim() > 2:
        return _nll_nd(input, target, weight, ignore_index, _reduction_arg(size_average, reduce, reduction))
    return _nll_loss(input, target, weight, size_average, ignore_index, reduce, reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """class-index targets with label smoothing (PyTorch's formula: (1 - eps) * nll + eps / C *
    the smoothed term, ignore_index masked out), and class-probability targets"""
    if has_torch_function_unary(input):
        return handle_torch_function(cross_entropy, (input,), input, target, weight=weight, size_average=size_average,
                                     ignore_index=ignore_index, reduce=reduce, reduction=reduction,
                                     label_smoothing=label_smoothing)
    reduction = _reduction_arg(size_average, reduce, reduction)
    if label_smoothing < 0.0 or label_smoothing > 1.0:
        raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: " + str(label_smoothing))
    class_dim = 0 if input.dim() == 1 else 1
    C = input.shape[class_dim]
    wshape = [1] * input.dim()
    wshape[class_dim] = C
    if target.is_floating_point():
        logp = _log_softmax(input, class_dim)
        t = target
        if label_smoothing > 0:
            t = t * (1 - label_smoothing) + label_smoothing / C
        term = logp * t
        if weight is not None:
            term = term * weight.reshape(wshape)
        loss = -term.sum(class_dim)
        if reduction == "mean":
            n = input.numel() // C
            return _named(loss.sum() / n, "DivBackward1", input, target, weight)   # ATen: sum / n, a Scalar div
        if reduction == "sum":
            return _named(loss.sum(), "NegBackward0", input, target, weight)   # ATen: -(input * target).sum()
        return _reduce(loss, reduction)
    if label_smoothing == 0.0 and input.dim() <= 2:
        return _cross_entropy(input, target, weight, None, ignore_index, None, reduction)
    logp = _log_softmax(input, class_dim)
    nll = (_nll_nd(logp, target, weight, ignore_index, reduction) if input.dim() > 2 else
           _nll_loss(logp, target, weight, None, ignore_index, None, reduction))
    if label_smoothing == 0.0:
        return nll
    smooth_terms = logp * weight.reshape(wshape) if weight is not None else logp
    smooth = -smooth_terms.sum(class_dim)
    keep = target != ignore_index
    smooth = smooth.masked_fill(~keep, 0.0)
    if reduction == "mean":
        if weight is not None:
            safe_t = target.masked_fill(~keep, 0)
            denom = (weight.index_select(0, safe_t.reshape(-1)) * keep.reshape(-1).float()).sum()
            ret = smooth.sum() / denom
        else:
            ret = smooth.sum() / keep.sum()
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return nll * (1 - label_smoothing) + ret * (label_smoothing / C)


def _feature_dropout(input, p, training, inplace, batched_dim, name):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if not training or p == 0.0:
        return input
    unbatched = input.dim() == batched_dim - 1
    x = input.unsqueeze(0) if unbatched else input
    shape = list(x.shape[:2]) + [1] * (x.dim() - 2)
    if p == 1.0:
        out = x * _torch.zeros(shape)
    else:
        # bernoulli_ with a scalar p, as ATen's feature_dropout draws (the tensor-p form draws another stream)
        noise = _torch.empty(shape, dtype=x.dtype).bernoulli_(1 - p) / (1 - p)
        out = x * noise
    out = out.squeeze(0) if unbatched else out
    return input.copy_(out) if inplace else out


def dropout1d(input, p=0.5, training=True, inplace=False):
    if input.dim() not in (2, 3):
        raise RuntimeError("dropout1d: Expected 2D or 3D input, but received a {}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).".format(input.dim()))
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 4, "dropout2d")


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if not training or p == 0.0:
        return input
    if input.numel() == 0:
        return input
    out = _alpha_dropout_draw(input, p, list(input.shape))
    return _named_inplace(input.copy_(out), "AddBackward0") if inplace else out   # (ATen's last in-place op: add_)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """bags as slices of the looked-up rows: 2-D input = one bag per row, 1-D input + offsets"""
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  "supported for mode='sum' (got mode='" + mode + "'). Please open a feature request "
                                  "on GitHub.")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type {}".format(type(offsets)))
        n, L = input.shape
        starts = [i * L for i in range(n)] + [n * L]
        flat = input.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    else:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        flat = input
        psw = per_sample_weights
        starts = [int(o) for o in offsets.tolist()]
        if include_last_offset:
            pass
        else:
            starts = starts + [flat.shape[0]]
    if max_norm is not None:   # the looked-up rows renormalised in place first, as PyTorch's
        from torch._composites_fn import _no_grad_embedding_renorm_
        flat = _no_grad_embedding_renorm_(weight, flat, max_norm, norm_type)
    rows = embedding(flat, weight)   # (scale_grad_by_freq: not applied here; tests/trace/footguns)
    if psw is not None:
        rows = rows * psw.unsqueeze(1)
    ids = flat.tolist()
    bags = []
    for b in range(len(starts) - 1):
        s, e = starts[b], starts[b + 1]
        keep = [i for i in range(s, e) if padding_idx is None or ids[i] != padding_idx]
        if not keep:
            bags.append(_torch.zeros(weight.shape[1]))
            continue
        part = rows.index_select(0, _torch.tensor(keep))
        if mode == "sum":
            bags.append(part.sum(0))
        elif mode == "mean":
            bags.append(part.mean(0))
        elif mode == "max":
            bags.append(part.max(0)[0])
        else:
            raise ValueError("mode has to be one of sum, mean or max")
    return _named(_torch.stack(bags, 0), "EmbeddingBagBackward0", weight, per_sample_weights)


# ---- attention ----

def _sdpa_core(q, k, v, attn_mask, dropout_p):
    """PyTorch 1.13's _scaled_dot_product_attention: q scaled first, the float mask added to q k^T"""
    E = q.shape[-1]
    q = q / math.sqrt(E)
    attn = _torch.matmul(q, k.transpose(-2, -1))
    if attn_mask is not None:
        attn = attn + attn_mask
    attn = _softmax(attn, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, p=dropout_p)
    return _torch.matmul(attn, v), attn


def _float_mask(mask, dtype_like):
    if mask is None or mask.is_floating_point():
        return mask
    return _torch.zeros(mask.shape).masked_fill(mask, float("-inf"))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """PyTorch 2.x's F.scaled_dot_product_attention: a bool mask keeps True positions, a float
    mask is added; is_causal masks the upper triangle"""
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    bias = None
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        bias = _torch.where(_torch.arange(S).unsqueeze(0) > _torch.arange(L).unsqueeze(1),
                            _torch.full((L, S), float("-inf")), _torch.zeros(L, S))
    elif attn_mask is not None:
        if attn_mask.is_floating_point():
            bias = attn_mask
        else:
            bias = _torch.zeros(attn_mask.shape).masked_fill(~attn_mask, float("-inf"))
    attn = _torch.matmul(query, key.transpose(-2, -1)) * scale_factor
    if bias is not None:
        attn = attn + bias
    attn = _softmax(attn, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return _torch.matmul(attn, value)


def _in_projection_packed(q, k, v, w, b=None):
    """PyTorch 1.13's packed in-projection: self-attention (q is k is v) is one product with all
    3*E rows of w, encoder-decoder attention (k is v) one for q and one for k and v together"""
    E = q.shape[-1]
    if k is v:
        if q is k:
            return linear(q, w, b).chunk(3, dim=-1)
        w_q, w_kv = w.split([E, E * 2])
        b_q = b_kv = None
        if b is not None:
            b_q, b_kv = b.split([E, E * 2])
        return (linear(q, w_q, b_q),) + tuple(linear(k, w_kv, b_kv).chunk(2, dim=-1))
    w_q, w_k, w_v = w.chunk(3)
    b_q = b_k = b_v = None
    if b is not None:
        b_q, b_k, b_v = b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """sequence-first (L, N, E) inputs, or unbatched (L, E); PyTorch 1.13's order of operations"""
    is_batched = query.dim() == 3
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError("was expecting embedding dimension of {}, but got {}".format(embed_dim_to_check,
                                                                                         embed_dim))
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError("embed_dim {} not divisible by num_heads {}".format(embed_dim, num_heads))
    if not use_separate_proj_weight:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q = linear(query, q_proj_weight, b_q)
        k = linear(key, k_proj_weight, b_k)
        v = linear(value, v_proj_weight, b_v)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError("The shape of the 2D attn_mask is {}, but should be {}.".format(
                    tuple(attn_mask.shape), (tgt_len, src_len)))
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError("The shape of the 3D attn_mask is {}, but should be {}.".format(
                    tuple(attn_mask.shape), (bsz * num_heads, tgt_len, src_len)))
        else:
            raise RuntimeError("attn_mask's dimension {} is not supported".format(attn_mask.dim()))
    if bias_k is not None and bias_v is not None:
        k = _torch.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _torch.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        k = _torch.cat([k, _torch.zeros(bsz * num_heads, 1, head_dim)], dim=1)
        v = _torch.cat([v, _torch.zeros(bsz * num_heads, 1, head_dim)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError("expecting key_padding_mask shape of {}, but got {}".format(
                (bsz, src_len), tuple(key_padding_mask.shape)))
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
            bsz * num_heads, 1, src_len)
        if not kpm.is_floating_point():
            if attn_mask is None:
                attn_mask = kpm
            elif not attn_mask.is_floating_point():
                attn_mask = attn_mask.logical_or(kpm)
            else:
                attn_mask = attn_mask.masked_fill(kpm, float("-inf"))
        else:
            attn_mask = kpm if attn_mask is None else attn_mask + kpm
    attn_mask = _float_mask(attn_mask, q)
    if not training:
        dropout_p = 0.0
    out, weights = _sdpa_core(q, k, v, attn_mask, dropout_p)
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    # (PyTorch views these back: ViewBackward0; a reshape would be _reshape_alias)
    out = _view(linear(out, out_proj_weight, out_proj_bias), (tgt_len, bsz, embed_dim))
    if need_weights:
        weights = _view(weights, (bsz, num_heads, tgt_len, src_len))
        if average_attn_weights:
            weights = weights.sum(1) / num_heads
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if not is_batched:
        out = out.squeeze(1)
    return out, None


# ---- nnx14: the rest of 1.13's torch.nn.functional that composes exactly from the ops above ----
# (PyTorch's own Python-level definitions in torch/nn/functional.py are these same compositions,
# so the results are PyTorch's bit for bit; kept in one block for merging)

def relu_(input):
    return input.relu_()


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


# The in-place forms modify input by in-place ops whose backward needs only a mask or factor
# computed before the write (copying an out-of-place result into input instead would leave that
# result's graph holding the overwritten input, and backward would fail on its version).

def leaky_relu_(input, negative_slope=0.01):
    # x > 0 ? x : x * slope, as x * (1 or slope): the same products, and the factor is the gradient
    with _torch.no_grad():
        factor = _torch.where(input > 0, _torch.ones_like(input), _torch.full_like(input, negative_slope))
    return _named_inplace(input.mul_(factor), "LeakyReluBackward1")


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    # the gradient is zero where the result sits on a bound (hardtanh_backward's <= / >=)
    lo, hi = input <= min_val, input >= max_val
    return _named_inplace(input.masked_fill_(lo, min_val).masked_fill_(hi, max_val), "HardtanhBackward0")


def threshold_(input, threshold, value):
    return _named_inplace(input.masked_fill_(input <= threshold, value), "ThresholdBackward1")


def upsample_nearest(input, size=None, scale_factor=None):
    import warnings
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    import warnings
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    if has_torch_function_unary(input):
        return handle_torch_function(adaptive_max_pool1d_with_indices, (input,), input, output_size,
                                     return_indices=return_indices)
    # a 1-row 2-D pool: its flat index h * W + w is w
    v, i = adaptive_max_pool2d_with_indices(input.unsqueeze(-2), (1, _ntuple(output_size, 1)[0]))
    return v.squeeze(-2), i.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    if has_torch_function_unary(input):
        return handle_torch_function(adaptive_max_pool1d, (input,), input, output_size, return_indices=return_indices)
    v, i = adaptive_max_pool1d_with_indices(input, output_size)
    return (v, i) if return_indices else v


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    if has_torch_function_unary(input):
        return handle_torch_function(lp_pool2d, (input,), input, norm_type, kernel_size, stride=stride,
                                     ceil_mode=ceil_mode)
    kw, kh = _pair(kernel_size)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_torch.sign(out) * relu(_torch.abs(out))).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    if has_torch_function_unary(input):
        return handle_torch_function(lp_pool1d, (input,), input, norm_type, kernel_size, stride=stride,
                                     ceil_mode=ceil_mode)
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_torch.sign(out) * relu(_torch.abs(out))).mul(kernel_size).pow(1.0 / norm_type)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """across-channel normalisation: the windowed mean of squares over channels is an average pool
    with a (size, 1) kernel and stride 1; for inputs of 4 or more dims PyTorch pools a
    (size, 1, 1) 3-D window, which is the same window over the flattened spatial dims"""
    if has_torch_function_unary(input):
        return handle_torch_function(local_response_norm, (input,), input, size, alpha=alpha, beta=beta, k=k)
    dim = input.dim()
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality                          "
                         "input (got {} dimensions)".format(dim))
    if input.numel() == 0:
        return input
    div = input.mul(input).unsqueeze(1)
    if dim == 3:
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.reshape(sizes[0], 1, sizes[1], -1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def channel_shuffle(input, groups):
    if has_torch_function_unary(input):
        return handle_torch_function(channel_shuffle, (input,), input, groups)
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           "sizes " + str(list(input.shape)))
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of groups:" + str(groups))
    c = input.shape[1]
    if c % groups != 0:
        raise RuntimeError("Number of channels must be divisible by groups. Got " + str(c) +
                           " channels and " + str(groups) + " groups.")
    n = input.shape[0]
    rest = list(input.shape[2:])
    return input.reshape([n, groups, c // groups] + rest).transpose(1, 2).reshape(list(input.shape))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction_arg(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.size(class_dim)
    return _reduce(loss.sum(dim=class_dim) / C, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if var.size() != input.size():
        # one dim short of input (homoscedastic): a trailing dim of 1 broadcasts
        if input.size()[:-1] == var.size():
            var = _torch.unsqueeze(var, -1)
        elif input.size()[:-1] == var.size()[:-1] and var.size(-1) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    if _torch.any(var < 0):
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with _torch.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (_torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    distance_function = distance_function if distance_function is not None else pairwise_distance
    positive_dist = distance_function(anchor, positive)
    negative_dist = distance_function(anchor, negative)
    if swap:
        swap_dist = distance_function(positive, negative)
        negative_dist = _torch.min(negative_dist, swap_dist)
    return _reduce(_torch.clamp(positive_dist - negative_dist + margin, min=0.0), reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """ATen's multi_margin_loss: per sample, the sum over classes i != y of
    max(0, margin - x[y] + x[i])^p (times weight[y]), divided by the class count"""
    reduction = _reduction_arg(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input.unsqueeze(0) if input.dim() <= 1 else input
    if x.dim() != 2 or x.shape[1] == 0:
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: " +
                           str(list(input.shape)).replace("[", "[").replace("]", "]"))
    C = x.shape[1]
    t = target.reshape(-1)
    if t.numel() != x.shape[0]:
        raise RuntimeError("inconsistent target size, got: " + str(list(target.shape)))
    if bool(((t < 0) | (t >= C)).any()):
        raise RuntimeError("target out of range")
    xy = x.gather(1, t.unsqueeze(1))
    z = (margin - xy + x).clamp(min=0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, t).unsqueeze(1)
    z = z.masked_fill(_torch.arange(C).unsqueeze(0) == t.unsqueeze(1), 0)
    loss = z.sum(1) / C
    if input.dim() <= 1 and reduction == "none":
        loss = loss.reshape(target.shape)
    return _named(_reduce(loss, reduction), "MultiMarginLossBackward0", input, weight)


import struct as _struct


def _f32(v):
    # v rounded to float32, to compute an index or weight as ATen's float arithmetic does
    return _struct.unpack("f", _struct.pack("f", v))[0]


def _cubic_taps(n, o, align_corners, scale, dtype):
    """ATen's bicubic source taps along one dim: for each output index the four clamped input
    indices and their weights (Keys' cubic convolution, A = -0.75), computed in the tensor's
    precision as HelperInterpCubic does (float32 arithmetic emulated by rounding each step)"""
    r = _f32 if dtype != _torch.float64 else (lambda v: v)
    if align_corners:
        sc = r(r(float(n - 1)) / (o - 1)) if o > 1 else 0.0
    else:
        sc = r(1.0 / scale) if (scale is not None and scale > 0) else r(r(float(n)) / o)
    A = -0.75
    idx, wts = [[] for _ in range(4)], [[] for _ in range(4)]
    for j in range(o):
        src = r(sc * j) if align_corners else r(r(sc * r(j + 0.5)) - 0.5)
        fl = math.floor(src)
        t = r(src - fl)
        def conv1(x):
            return r(r(r(r(r((A + 2) * x) - (A + 3)) * x) * x) + 1)

        def conv2(x):
            return r(r(r(r(r(r(A * x) - 5 * A) * x) + 8 * A) * x) - 4 * A)
        x2 = r(1.0 - t)
        w = (conv2(r(t + 1.0)), conv1(t), conv1(x2), conv2(r(x2 + 1.0)))
        for k in range(4):
            idx[k].append(min(max(fl - 1 + k, 0), n - 1))
            wts[k].append(w[k])
    return idx, wts


def _upsample_bicubic2d(input, out_sizes, align_corners, scales):
    """upsample_bicubic2d as ATen's generic kernel sums it: along W first (each source row's four
    taps, left to right), then the four rows along H, so each dim is a weighted sum of gathers"""
    if input.dim() != 4:
        raise NotImplementedError("Got " + str(input.dim()) + "D input, but bicubic mode needs 4D input")
    out = input
    for d, i in ((3, 1), (2, 0)):
        idx, wts = _cubic_taps(input.shape[d], out_sizes[i], align_corners, scales[i], input.dtype)
        shape = [1] * 4
        shape[d] = out_sizes[i]
        acc = None
        for k in range(4):
            term = out.index_select(d, _torch.tensor(idx[k])) * _torch.tensor(wts[k], dtype=input.dtype).reshape(shape)
            acc = term if acc is None else acc + term
        out = acc
    return out


def dropout3d(input, p=0.5, training=True, inplace=False):
    if has_torch_function_unary(input):
        return handle_torch_function(dropout3d, (input,), input, p=p, training=training, inplace=inplace)
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        import warnings
        warnings.warn("dropout3d: Received a {}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).".format(inp_dim))
    if inp_dim == 5:
        return _feature_dropout(input, p, training, inplace, 5, "dropout3d")
    # unbatched (or of another rank): one sample, as PyTorch's unsqueeze(0) / squeeze(0)
    out = _feature_dropout(input.unsqueeze(0), p, training, False, inp_dim + 1, "dropout3d").squeeze(0)
    return input.copy_(out) if inplace and training and p > 0 else out


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """ATen's feature alpha dropout: one Bernoulli draw per (sample, channel), kept values scaled by
    a and dropped ones set to SELU's saturation, through b = (noise - 1) * alpha * a + alpha * a * p"""
    if has_torch_function_unary(input):
        return handle_torch_function(feature_alpha_dropout, (input,), input, p=p, training=training, inplace=inplace)
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if p == 0 or not training or input.numel() == 0:
        return input
    out = _alpha_dropout_draw(input, p, list(input.shape[:2]) + [1] * (input.dim() - 2))
    return input.copy_(out) if inplace else out


def _alpha_dropout_draw(input, p, shape):
    """ATen's _dropout_impl with alpha: noise drawn by bernoulli_(1 - p) over shape (the input's, or
    one per sample and channel), then input * (noise * a) + (noise - 1) * alpha * a + alpha * a * p"""
    if p == 1:
        return input * _torch.zeros((), dtype=input.dtype)
    alpha = 1.7580993408473766
    a = 1. / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    noise = _torch.empty(shape, dtype=input.dtype).bernoulli_(1 - p)
    b = noise.add(-1).mul_(alpha * a).add_(alpha * a * p)
    return input * noise.mul_(a) + b


# ---- max_unpool: scatter each pooled value back to the position its index names ----

def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = input.size()
    default_size = []
    for d in range(len(kernel_size)):
        default_size.append((input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d])
    if output_size is None:
        return default_size
    if len(output_size) == len(kernel_size) + 2:
        output_size = output_size[2:]
    if len(output_size) != len(kernel_size):
        raise ValueError("output_size should be a sequence containing {} or {} elements, but it has a length of "
                         "'{}'".format(len(kernel_size), len(kernel_size) + 2, len(output_size)))
    for d in range(len(kernel_size)):
        min_size = default_size[d] - stride[d]
        max_size = default_size[d] + stride[d]
        if not (min_size < output_size[d] < max_size):
            raise ValueError('invalid output_size "{}" (dim {} must be between {} and {})'.format(
                output_size, d, min_size, max_size))
    return list(output_size)


def _max_unpool(input, indices, output_size, name):
    """ATen's max_unpool2d/3d forward: a zero output of the spatial output_size per (sample,
    channel) plane, each input value written at the flat position its index names; an index
    outside the plane is PyTorch's error.  The gradient is the output gradient gathered back."""
    nd = len(output_size)
    if input.shape != indices.shape:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor ({}) but got indices "
                           "tensor with shape: {}".format(list(input.shape), list(indices.shape)))
    lead = list(input.shape[:input.dim() - nd])
    plane = 1
    for n in output_size:
        plane *= n
    flat_idx = indices.reshape(lead + [-1])
    if flat_idx.numel():
        lo, hi = int(flat_idx.min()), int(flat_idx.max())
        if lo < 0 or hi >= plane:
            bad = lo if lo < 0 else hi
            raise RuntimeError("Found an invalid max index: {} (output volumes are of size {}".format(
                bad, "x".join(str(n) for n in output_size)))
    out = _torch.zeros(lead + [plane], dtype=input.dtype).scatter(-1, flat_idx, input.reshape(lead + [-1]))
    return _named(out.view(lead + list(output_size)), name, input)


def _unpool_args(input, kernel_size, stride, padding, output_size, nd):
    kernel_size = _ntuple(kernel_size, nd)
    _stride = _ntuple(stride, nd) if stride is not None else kernel_size
    return _unpool_output_size(input, kernel_size, _stride, _ntuple(padding, nd), output_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # ATen's max_unpool1d is max_unpool2d over a trailing dim of 1
    output_size = list(_unpool_args(input, kernel_size, stride, padding, output_size, 1)) + [1]
    return _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), output_size, "MaxUnpool2DBackward0").squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, _unpool_args(input, kernel_size, stride, padding, output_size, 2),
                       "MaxUnpool2DBackward0")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, _unpool_args(input, kernel_size, stride, padding, output_size, 3),
                       "MaxUnpool3DBackward0")
