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


# ---- convolution, pooling, padding (over torch._C._nn.im2col / col2im / max_pool2d_with_indices,
#      src/tensor/conv.c): a convolution is one im2col plus one GEMM, so its backward is col2im plus
#      GEMMs, recorded and compiled like any other chain of ops ----
from torch._C._nn import im2col as _im2col, col2im as _col2im, \
    max_pool2d_with_indices as _max_pool2d_with_indices


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
        out = _torch.matmul(weight.reshape(O, Cg * kh * kw), cols)
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
    return _conv2d_core(input, weight, bias, stride, pads, dilation, groups)


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
    return out.squeeze(0) if unbatched else out


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
    return _conv_transpose2d_core(input, weight, bias, *args)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if has_torch_function_unary(input):
        return handle_torch_function(conv_transpose1d, (input,), input, weight, bias, stride, padding,
                                     output_padding, groups, dilation)
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    out = _conv_transpose2d_core(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, _ntuple(stride, 1)[0]),
                                 (0, _ntuple(padding, 1)[0]), (0, _ntuple(output_padding, 1)[0]), groups,
                                 (1, _ntuple(dilation, 1)[0])).squeeze(2)
    return out.squeeze(0) if unbatched else out


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
                raise RuntimeError("Argument #4: Padding size should be less than the corresponding input dimension, "
                                   "but got: padding (" + str(before) + ", " + str(after) + ") at dimension " + str(d) +
                                   " of input " + str(list(input.shape)))
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
    return out


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
    pb = max(p[0], (oh - 1) * s[0] + k[0] - H - p[0])
    pr = max(p[1], (ow - 1) * s[1] + k[1] - W - p[1])
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
        return _avg_pool2d_core(input.unsqueeze(0), k, s, _pair(padding), ceil_mode, count_include_pad,
                                divisor_override).squeeze(0)
    return _avg_pool2d_core(input, k, s, _pair(padding), ceil_mode, count_include_pad, divisor_override)


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
        return input.mean((-2, -1), keepdim=True)
    if H % oh == 0 and W % ow == 0:
        return avg_pool2d(input, (H // oh, W // ow))
    rows = []
    for hs, he in _adaptive_ranges(H, oh):
        row = [input[..., hs:he, ws:we].mean((-2, -1)) for ws, we in _adaptive_ranges(W, ow)]
        rows.append(_torch.stack(row, -1))
    return _torch.stack(rows, -2)


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
    return x.reshape(lead + [oc, H * r, W * r])


def pixel_unshuffle(input, downscale_factor):
    r = downscale_factor
    *lead, C, H, W = input.shape
    n = len(lead)
    x = input.reshape(lead + [C, H // r, r, W // r, r])
    x = x.permute(list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    return x.reshape(lead + [C * r * r, H // r, W // r])


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """nearest and (bi)linear resampling by index_select / weighted sums of gathered rows and
    columns (PyTorch's source-index formulas), differentiable through those ops"""
    if has_torch_function_unary(input):
        return handle_torch_function(interpolate, (input,), input, size=size, scale_factor=scale_factor, mode=mode,
                                     align_corners=align_corners, recompute_scale_factor=recompute_scale_factor)
    nd = input.dim() - 2
    if mode in ("nearest", "area") and align_corners is not None:
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
    out = input
    for i in range(nd):
        d = 2 + i
        n, o = in_sizes[i], out_sizes[i]
        if mode == "nearest":
            scale = (1.0 / scales[i]) if scales[i] else n / o
            idx = [min(int(j * scale), n - 1) for j in range(o)]
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
            w1t = _torch.tensor(w1).reshape(shape)
            lo = out.index_select(d, _torch.tensor(i0))
            hi = out.index_select(d, _torch.tensor(i1))
            out = lo * (1 - w1t) + hi * w1t
        else:
            raise NotImplementedError("interpolate mode '" + mode + "' is not supported by Ember")
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


# ---- normalization (compositions: mean/var over the reduced dims, then the affine map) ----

def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if has_torch_function_unary(input):
        return handle_torch_function(batch_norm, (input,), input, running_mean, running_var, weight=weight,
                                     bias=bias, training=training, momentum=momentum, eps=eps)
    C = input.shape[1]
    dims = [0] + list(range(2, input.dim()))
    shape = [1, C] + [1] * (input.dim() - 2)
    if training:
        n = input.numel() // C
        if n == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input size " + str(input.shape))
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
    out = (input - mean.reshape(shape)) * _torch.rsqrt(var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if has_torch_function_unary(input):
        return handle_torch_function(instance_norm, (input,), input, running_mean, running_var, weight=weight,
                                     bias=bias, use_input_stats=use_input_stats, momentum=momentum, eps=eps)
    N, C = input.shape[0], input.shape[1]
    shape = [1, C] + [1] * (input.dim() - 2)
    if use_input_stats:
        dims = list(range(2, input.dim()))
        mean = input.mean(dims, keepdim=True)
        var = input.var(dims, unbiased=False, keepdim=True)
        if running_mean is not None:
            n = input.numel() // (N * C)
            with _torch.no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach().reshape(N, C).mean(0) * momentum)
                running_var.mul_(1 - momentum).add_(var.detach().reshape(N, C).mean(0) * (momentum * n / (n - 1)))
        out = (input - mean) * _torch.rsqrt(var + eps)
    else:
        out = (input - running_mean.reshape(shape)) * _torch.rsqrt(running_var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


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
    return out
