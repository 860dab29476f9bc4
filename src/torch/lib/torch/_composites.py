"""torch functions PyTorch defines by decomposition into other ops (ATen's CompositeImplicit
kernels), written over Ember's traced ops so autograd and torch.compile need nothing new: outer,
hstack/vstack/atleast_*, nan_to_num, isclose, lerp, logspace, diag/trace (diagonal itself is a view op of the table), baddbmm,
repeat_interleave, tensordot, square, addcmul, addcdiv, deg2rad, rad2deg.  Gradients come from the ops they decompose into; where
PyTorch records one node for the op, the result's grad_fn is given its name (_named: LerpBackward0,
TraceBackward0, ...)."""
import struct as _struct

import torch
from torch._C import _mathop
from torch._mathops import _outable, _inplace_source


def _named(out, name, *inputs):
    """out, its grad_fn named as PyTorch's one node for the op decomposed here (F._named)"""
    if not torch._C._is_compiling() and isinstance(out, torch.Tensor):   # (not an fx Proxy)
        torch._C._name_grad_fn(out, name, *inputs)
    return out


def _named_inplace(t, name):
    """t after the in-place op decomposed here, named as PyTorch's in-place node (F._named_inplace)"""
    if not torch._C._is_compiling() and isinstance(t, torch.Tensor) and t._base is None and torch.is_grad_enabled():
        torch._C._name_grad_fn(t, name)
    return t


@_outable("outer")
def outer(input, vec2):
    if input.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    return input.reshape(input.shape[0], 1) * vec2


ger = outer


def atleast_1d(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = tuple(t.reshape(1) if t.dim() == 0 else t for t in ts)
    return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out


def atleast_2d(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = tuple(t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0) if t.dim() == 1 else t for t in ts)
    return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out


@_outable("hstack")
def hstack(tensors):
    ts = atleast_1d(tuple(tensors))
    return torch.cat(ts, 0 if ts[0].dim() == 1 else 1)


@_outable("vstack")
def vstack(tensors):
    return torch.cat(atleast_2d(tuple(tensors)), 0)


row_stack = vstack


@_outable("nan_to_num")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if not input.is_floating_point():
        return input.clone()
    fi = torch.finfo(input.dtype)
    # a TensorIterator unary op in ATen: the result is laid out as the input (clone preserves)
    out = input.clone()
    out.masked_fill_(input.isnan(), 0.0 if nan is None else nan)
    out.masked_fill_(input == float("inf"), fi.max if posinf is None else posinf)
    out.masked_fill_(input == float("-inf"), fi.min if neginf is None else neginf)
    return _named(out, "NanToNumBackward0", input)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if input.dtype != other.dtype:
        raise RuntimeError(f"{input.dtype} did not match {other.dtype}")
    close = input == other
    if equal_nan and input.is_floating_point():
        close = close | (input.isnan() & other.isnan())
    if input.dtype == torch.bool:
        return close
    a, b = (input, other) if input.is_floating_point() else (input.to(torch.get_default_dtype()),
                                                               other.to(torch.get_default_dtype()))
    allowed = atol + rtol * b.abs()
    actual = (a - b).abs()
    return close | (actual.isfinite() & (actual <= allowed))


def _dtype_word(dt):
    # ATen's toString of a ScalarType in its messages ("float", "double", "long", ...)
    return str(dt).replace("torch.", "").replace("float32", "float").replace("float64", "double") \
        .replace("int64", "long").replace("int32", "int").replace("int16", "short").replace("int8", "char") \
        .replace("uint8", "unsigned char").replace("float16", "c10::Half").replace("bfloat16", "c10::BFloat16")


def _f32(v):
    """v rounded to float32, as ATen's kernels turn a Scalar into a float tensor's opmath type"""
    return _struct.unpack("f", _struct.pack("f", v))[0]


@_outable("lerp")
def lerp(input, end, weight):
    # ATen's lerp: start + w * (end - start) for |w| < 0.5, end - (end - start) * (1 - w) otherwise,
    # each a fused multiply-add in its FMA-built kernel: with a number weight that is add's alpha
    # form (one fma, any dtype); with a tensor weight, float32 runs the product and the sum in
    # float64 (the product is exact there, so only a double rounding on an exact float midpoint,
    # ~1 in 2**29, could differ) and float64 stays unfused
    if end.dtype != input.dtype:
        raise RuntimeError("expected dtype %s for `end` but got dtype %s" % (_dtype_word(input.dtype), _dtype_word(end.dtype)))
    if isinstance(weight, torch.Tensor) and weight.dtype != input.dtype:
        raise RuntimeError("expected dtype %s for `weight` but got dtype %s" % (_dtype_word(input.dtype),
                                                                             _dtype_word(weight.dtype)))
    diff = end - input
    if isinstance(weight, torch.Tensor):
        if input.dtype == torch.float32:
            d64 = diff.double()
            lo = (input.double() + weight.double() * d64).float()
            hi = (end.double() - d64 * (1 - weight).double()).float()
            return _named(torch.where(weight.abs() < 0.5, lo, hi), "LerpBackward1", input, end, weight)
        return _named(torch.where(weight.abs() < 0.5, input + weight * diff, end - diff * (1 - weight)),
                      "LerpBackward1", input, end, weight)
    w = _f32(weight) if input.dtype == torch.float32 else float(weight)
    if abs(w) < 0.5:
        return _named(torch.add(input, diff, alpha=w), "LerpBackward0", input, end)
    one_minus = _f32(1.0 - w) if input.dtype == torch.float32 else 1.0 - w
    return _named(torch.add(end, diff, alpha=-one_minus), "LerpBackward0", input, end)


@_outable("logspace")
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, **kwargs):
    exps = torch.linspace(start, end, steps, dtype=torch.float64)
    r = torch.pow(torch.tensor(float(base), dtype=torch.float64), exps)
    r = r.to(torch.get_default_dtype() if dtype is None else dtype)
    return r.requires_grad_() if requires_grad else r


def _diag_index(n_rows, n_cols, offset):
    # the (rows, cols) positions of diagonal `offset` of an n_rows x n_cols matrix
    if offset >= 0:
        n = max(0, min(n_rows, n_cols - offset))
        rows = torch.arange(n)
        return rows, rows + offset
    n = max(0, min(n_rows + offset, n_cols))
    cols = torch.arange(n)
    return cols - offset, cols


def diagonal(input, offset=0, dim1=0, dim2=1):
    # a view of the table (DiagonalBackward0): writes through it reach input
    return _mathop("DIAGONAL", input, start=offset, dim=dim1, dim2=dim2)


@_outable("diag")
def diag(input, diagonal=0):
    if input.dim() == 1:
        n = input.shape[0] + abs(diagonal)
        rows, cols = _diag_index(n, n, diagonal)
        out = torch.zeros(n, n, dtype=input.dtype)
        return _named(out.index_put((rows, cols), input), "DiagBackward0", input)
    if input.dim() == 2:
        return _named(globals()["diagonal"](input, diagonal).clone(), "DiagBackward0", input)   # diag copies
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got %dD" % input.dim())


def trace(input):
    if input.dim() != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim %d" % input.dim())
    return _named(diagonal(input).sum(), "TraceBackward0", input)


@_outable("baddbmm")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    # PyTorch 1.13's baddbmm_out_cpu: input expanded to the result's shape first (its message, and
    # its IndexError for a 2-D batch2), then the 3-D and size checks; the result has batch1's dtype.
    bs, m, n = batch1.size(0), batch1.size(1), batch2.size(2)
    start = input.expand(bs, m, n)
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    k = batch1.size(2)
    if batch2.size(0) != bs or batch2.size(1) != k:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: [%d, %d]."
                           % (bs, k, batch2.size(0), batch2.size(1)))
    if batch2.dtype != batch1.dtype:
        from torch._indexing import _cname
        raise RuntimeError("expected scalar type %s but found %s" % (_cname(batch1.dtype), _cname(batch2.dtype)))
    start = start.to(batch1.dtype)
    if k * m * n < 400:
        # bmm_out_or_baddbmm_'s small kernel: r = input * beta (0 when beta is 0: input's NaNs do
        # not propagate), then r += (alpha * batch1[.., p]) * batch2[p, ..] for each p in order,
        # rounding at every step; the elementwise ops here round exactly as it does
        r = start * beta if beta != 0 else torch.zeros(bs, m, n, dtype=batch1.dtype)
        for p in range(k):
            r = r + (alpha * batch1[:, :, p:p + 1]) * batch2[:, p:p + 1, :]
    elif alpha == 1 and (beta == 0 or beta == 1):
        # a GEMM a batch with alpha 1 and beta 0 or 1 rounds as bmm followed by one add
        prod = torch.bmm(batch1, batch2)
        r = prod if beta == 0 else start + prod
    else:
        # otherwise one GEMM a batch with beta and alpha (OpenBLAS scales by beta, then adds alpha * AB
        # in one rounding), as ATen calls addmm_impl_cpu_ on each slice
        r = torch.stack([torch.addmm(start[b], batch1[b], batch2[b], beta=beta, alpha=alpha) for b in range(bs)])
    return _named(r, "BaddbmmBackward0", input, batch1, batch2)


def baddbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    # in place: the same kernels with input as the result (ATen's copy of self is a no-op there)
    return input.copy_(baddbmm(input, batch1, batch2, beta=beta, alpha=alpha))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:
        # torch.repeat_interleave(repeats): each index i repeated repeats[i] times
        counts = input.tolist()
        return torch.tensor([i for i, c in enumerate(counts) for _ in range(c)], dtype=torch.int64)
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else dim % max(x.dim(), 1)
    n = x.shape[d] if x.dim() else 1
    counts = repeats.tolist() if isinstance(repeats, torch.Tensor) else repeats
    if isinstance(counts, int):
        counts = [counts] * n
    elif len(counts) == 1:
        counts = counts * n
    if len(counts) != n:
        raise RuntimeError("repeats must have the same size as input along dim")
    index = torch.tensor([i for i, c in enumerate(counts) for _ in range(c)], dtype=torch.int64)
    return x.index_select(d, index)


@_outable("tensordot")
def tensordot(a, b, dims=2, out=None):
    if isinstance(dims, int):
        da = list(range(-dims, 0))
        db = list(range(dims))
    elif isinstance(dims, torch.Tensor):
        da, db = dims.tolist()
    else:
        da, db = list(dims[0]), list(dims[1])
    if isinstance(da, int):
        da, db = [da], [db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} "
                               f"and second has size {b.shape[y]} in dim {y}")
    da = [d % a.dim() for d in da]
    db = [d % b.dim() for d in db]
    free_a = [d for d in range(a.dim()) if d not in da]
    free_b = [d for d in range(b.dim()) if d not in db]
    k = 1
    for d in da:
        k *= a.shape[d]
    sa = [a.shape[d] for d in free_a]
    sb = [b.shape[d] for d in free_b]
    m = 1
    for s in sa:
        m *= s
    n = 1
    for s in sb:
        n *= s
    left = a.permute(*free_a, *da).reshape(m, k)
    right = b.permute(*db, *free_b).reshape(k, n)
    return (left @ right).reshape(*sa, *sb)


@_outable("square")
def square(input):
    return torch.pow(input, 2)


@_outable("addcmul")
def addcmul(input, tensor1, tensor2, *, value=1):
    # ATen's kernel: self + value * tensor1 * tensor2, its last product fused into the add (the
    # FMA-built kernel's contraction): float32 runs that product and sum in float64, where the
    # product is exact (so only a double rounding on an exact float midpoint, ~1 in 2**29, could
    # differ); other dtypes unfused
    if input.dtype == tensor1.dtype == tensor2.dtype == torch.float32:
        p = tensor1 if value == 1 else value * tensor1
        return _named((input.double() + p.double() * tensor2.double()).float(), "AddcmulBackward0", input, tensor1,
                      tensor2)
    return _named(input + value * tensor1 * tensor2, "AddcmulBackward0", input, tensor1, tensor2)


@_outable("addcdiv")
def addcdiv(input, tensor1, tensor2, *, value=1):
    if not tensor1.is_floating_point() and not tensor2.is_floating_point():
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release "
                           "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
                           "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))."
                           "to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
                           "float inputs. The future addcdiv behavior is just the latter implementation: "
                           "(input + value * tensor1 / tensor2), for all dtypes.")
    return _named(input + value * tensor1 / tensor2, "AddcdivBackward0", input, tensor1, tensor2)


def _to_float(input):
    return input if input.is_floating_point() else input.to(torch.get_default_dtype())


@_outable("deg2rad")
def deg2rad(input):
    return _named(_to_float(input) * 0.017453292519943295, "Deg2RadBackward0", input)


@_outable("rad2deg")
def rad2deg(input):
    return _named(_to_float(input) * 57.295779513082323, "Rad2DegBackward0", input)


def addcmul_(input, tensor1, tensor2, *, value=1):
    return _named_inplace(input.copy_(addcmul(input, tensor1, tensor2, value=value)), "AddcmulBackward0")


def addcdiv_(input, tensor1, tensor2, *, value=1):
    return _named_inplace(input.copy_(addcdiv(input, tensor1, tensor2, value=value)), "AddcdivBackward0")


# the Tensor methods of torch/_composites_extra.py's functions (m_composite looks here)
from torch._composites_extra import (signbit, dist, movedim, moveaxis, diff, nansum, nanmean, median, nanmedian,
                                     aminmax, rot90, kron, addmv, addr, cross, float_power, ldexp, heaviside, renorm,
                                     quantile, nanquantile)
from torch._composites_extra import cov, corrcoef, matrix_power
from torch._composites_more import (broadcast_to, ravel, tile, swapdims, unflatten, fliplr, flipud, hsplit, vsplit,
                                    dsplit, unsafe_chunk, unsafe_split, unsafe_split_with_sizes, narrow_copy,
                                    sum_to_size, select_scatter, slice_scatter, diagonal_scatter, clamp_max,
                                    clamp_min_, clamp_max_, clip_, absolute, absolute_, positive, greater, greater_,
                                    greater_equal, greater_equal_, less, less_, less_equal, less_equal_, not_equal,
                                    not_equal_, eq_, ne_, lt_, le_, gt_, ge_, is_complex, is_conj, is_neg, is_signed,
                                    is_nonzero, is_same_size, conj, resolve_conj, resolve_neg, conj_physical,
                                    isposinf, isneginf, isreal, gcd, gcd_, lcm, lcm_, inner, vdot, addbmm, addbmm_,
                                    diag_embed, diagflat, msort, mode, fill_diagonal_, bitwise_left_shift,
                                    bitwise_right_shift, bitwise_left_shift_, bitwise_right_shift_, __lshift__,
                                    __rshift__, __rlshift__, __rrshift__, __ilshift__, __irshift__)


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    return input.copy_(torch.addmv(input, mat, vec, beta=beta, alpha=alpha))


def deg2rad_(input):
    return input.copy_(deg2rad(input))


def rad2deg_(input):
    return input.copy_(rad2deg(input))


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    return _named_inplace(input.copy_(nan_to_num(input, nan, posinf, neginf)), "NanToNumBackward0")


def square_(input):
    return input.mul_(_inplace_source(input))


def ldexp_(input, other):
    return input.copy_(torch.ldexp(_inplace_source(input), other))


def _copy_back(name):
    """Tensor.<op>_: the out-of-place op written back into the tensor (ATen's in-place kernels give
    the same values)."""
    def f(input, *args, **kwargs):
        return input.copy_(getattr(torch, name)(_inplace_source(input), *args, **kwargs))
    f.__name__ = f.__qualname__ = name + "_"
    return f


cumsum_, cumprod_, tril_, triu_, heaviside_, multiply_, subtract_, true_divide_ = (
    _copy_back(n) for n in ("cumsum", "cumprod", "tril", "triu", "heaviside", "multiply", "subtract", "true_divide"))


def lerp_(input, end, weight):
    return _named_inplace(input.copy_(lerp(input, end, weight)),
                          "LerpBackward1" if isinstance(weight, torch.Tensor) else "LerpBackward0")


def renorm_(input, p, dim, maxnorm):
    return input.copy_(torch.renorm(_inplace_source(input), p, dim, maxnorm))


def float_power_(input, exponent):
    if input.dtype != torch.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_DTYPE_NAME.get(input.dtype, input.dtype)} "
                           f"but the operation's result requires dtype Double")
    return input.copy_(torch.float_power(_inplace_source(input), exponent))


_DTYPE_NAME = {torch.float32: "Float", torch.float16: "Half", torch.bfloat16: "BFloat16", torch.int64: "Long",
               torch.int32: "Int", torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte", torch.bool: "Bool"}


def get_device(input):
    return -1


def is_inference(input):
    return False
