"""The torch functions and Tensor methods a probe of PyTorch 1.13's namespace found missing, where
ATen's own kernel is a composition (CompositeImplicit) or an alias, so writing them over Ember's
traced ops gives PyTorch's values and gradients: conversions (as_tensor, asarray, scalar_tensor,
empty_strided, range), broadcasting (broadcast_tensors, broadcast_to), shape (ravel, tile,
swapdims, unflatten, fliplr/flipud, hsplit/vsplit/dsplit, unsafe_chunk/unsafe_split,
narrow_copy, sum_to_size), the *_scatter ops, clamp_min/clamp_max, the comparison aliases
(greater, less_equal, not_equal ...), the complex-number queries on real tensors (conj, real,
is_complex ...), isin/isposinf/isneginf/isreal, inner/vdot/chain_matmul/addbmm, diag_embed and
diagflat, msort and mode, the trapezoid rules, the window functions, gcd/lcm and fill_diagonal_.
The Tensor methods of these names are bound in src/torch/tensor_methods.c (m_composite)."""
import builtins
import math
import warnings

import torch
from torch._C import _rt_mode


def _dim(d, n):
    lo, hi = (-n, n - 1) if n > 0 else (-1, 0)
    if d < lo or d > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return d + n if d < 0 else d


# ---- conversions and creation --------------------------------------------------------------------

def as_tensor(data, dtype=None, device=None):
    """A tensor that shares data's memory when it already is one of that dtype (PyTorch's rule)."""
    if isinstance(data, torch.Tensor):
        return data if dtype is None or data.dtype == dtype else data.to(dtype)
    return torch.tensor(data, dtype=dtype)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    if isinstance(obj, torch.Tensor):
        t = obj if dtype is None or obj.dtype == dtype else obj.to(dtype)
        if copy and t is obj:
            t = obj.clone()
        if requires_grad and not t.requires_grad:
            t = t.detach().requires_grad_(True) if t is obj else t.requires_grad_(True)
        return t
    if copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    return torch.tensor(obj, dtype=dtype, requires_grad=requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, layout=None, pin_memory=None, requires_grad=False):
    return torch.tensor(s, dtype=dtype if dtype is not None else torch.get_default_dtype(),
                        requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    extent = 1 + builtins.sum((s - 1) * st for s, st in zip(size, stride)) if all(s > 0 for s in size) else 0
    base = torch.empty(extent, dtype=dtype)
    t = base.as_strided(size, stride)
    return t.requires_grad_(True) if requires_grad else t


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """torch.range: deprecated in favour of arange, and inclusive of end (a float tensor)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    n = int(math.floor((end - start) / step)) + 1
    dtype = dtype if dtype is not None else torch.get_default_dtype()
    r = torch.arange(n, dtype=torch.float64) * step + start
    r = r.to(dtype)
    return r.requires_grad_(True) if requires_grad else r


def concatenate(tensors, axis=0, out=None):
    return torch.cat(tensors, axis) if out is None else torch.cat(tensors, axis, out=out)


# ---- broadcasting and shape ----------------------------------------------------------------------

def broadcast_to(input, *size):
    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    return input.expand(*size)


def broadcast_tensors(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    shape = torch.broadcast_shapes(*(t.shape for t in ts))
    return tuple(t.expand(*shape) for t in ts)


def ravel(input):
    return input.contiguous().view(-1)   # as ATen's ravel (ViewBackward0)


def tile(input, dims):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(dims) < input.dim():
        dims = (1,) * (input.dim() - len(dims)) + dims
    return input.repeat(*dims)


def swapdims(input, dim0, dim1):
    return input.transpose(dim0, dim1)


def unflatten(input, dim, sizes):
    n = input.dim()
    d = _dim(dim, n)
    sizes = list(sizes)
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if -1 in sizes:
        if known == 0 or input.shape[d] % known:
            raise RuntimeError(f"shape '{sizes}' is invalid for input of size {input.numel()}")
        sizes[sizes.index(-1)] = input.shape[d] // known
    elif known != input.shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({input.shape[d]}) in the input tensor")
    return input.view(*input.shape[:d], *sizes, *input.shape[d + 1:])   # ATen's unflatten views (one dim split)


def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def _dir_split(input, sections, dim, name, need):
    if input.dim() < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension{'' if need == 1 else 's'}, "
                           f"but got a tensor with {input.dim()} dimensions!")
    if isinstance(sections, int):
        if sections == 0 or input.shape[dim] % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{input.shape[dim]} is not divisible by the split_size {sections}!")
    return torch.tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    return _dir_split(input, indices_or_sections, 0 if input.dim() == 1 else 1, "hsplit", 1)


def vsplit(input, indices_or_sections):
    return _dir_split(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input, indices_or_sections):
    return _dir_split(input, indices_or_sections, 2, "dsplit", 3)


def _named(out, name, *inputs):
    """out, its grad_fn named as PyTorch's one node for the op decomposed here (F._named)"""
    if not torch._C._is_compiling() and isinstance(out, torch.Tensor):   # (not an fx Proxy)
        torch._C._name_grad_fn(out, name, *inputs)
    return out


def unsafe_chunk(input, chunks, dim=0):
    parts = input.chunk(chunks, dim)
    return tuple(_named(p, "UnsafeSplitBackward0", input) for p in parts)   # (one node, shared by the parts)


def unsafe_split(input, split_size, dim=0):
    parts = input.split(split_size, dim)
    return tuple(_named(p, "UnsafeSplitBackward0", input) for p in parts)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return input.split(list(split_sizes), dim)


def narrow_copy(input, dim, start, length):
    return input.narrow(dim, start, length).clone(memory_format=torch.contiguous_format)


def sum_to_size(input, *size):
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple, torch.Size)) else tuple(size)
    shape = tuple(input.shape)
    try:
        if torch.broadcast_shapes(size, shape) != torch.Size(shape):
            raise RuntimeError
    except RuntimeError:
        raise RuntimeError(f"size {{{', '.join(str(s) for s in size)}}} is not expandable to size "
                           f"{{{', '.join(str(s) for s in shape)}}}.") from None
    lead = len(shape) - len(size)
    r = input.sum(tuple(builtins.range(lead))) if lead > 0 else input
    dims = tuple(i for i, s in enumerate(size) if s == 1 and r.shape[i] != 1)
    return r.sum(dims, keepdim=True) if dims else r


# ---- scatter into views ------------------------------------------------------------------------

def select_scatter(input, src, dim, index):
    r = input.clone(memory_format=torch.contiguous_format)
    r.select(dim, index).copy_(src)
    return _named(r, "SelectScatterBackward0", input, src)


def slice_scatter(input, src, dim=0, start=None, end=None, step=None):
    # PyTorch 1.13's binding: without an explicit step the slice takes one element, at start
    # (its default step reaches past the dimension), so slice_scatter(x, src, 0, 2) writes row 2 only
    r = input.clone(memory_format=torch.contiguous_format)
    d = _dim(dim, r.dim())
    n = r.shape[d]
    s = 0 if start is None else start
    e = n if end is None else end
    idx = [builtins.slice(None)] * r.dim()
    idx[d] = builtins.slice(s, e, step if step is not None else builtins.max(n, 1))
    view = r[tuple(idx)]
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view.shape)}")
    r[tuple(idx)] = src
    return r


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    r = input.clone(memory_format=torch.contiguous_format)
    r.diagonal(offset, dim1, dim2).copy_(src)
    return _named(r, "DiagonalScatterBackward0", input, src)


# ---- elementwise aliases and queries -----------------------------------------------------------

def clamp_min(input, min):
    r = torch.clamp(input, min=min)
    return _named(r, "ClampMinBackward1" if isinstance(min, torch.Tensor) else "ClampMinBackward0", input, min)


def clamp_max(input, max):
    r = torch.clamp(input, max=max)
    return _named(r, "ClampMaxBackward1" if isinstance(max, torch.Tensor) else "ClampMaxBackward0", input, max)


def clamp_min_(input, min):
    r = input.clamp_(min=min)
    if not torch._C._is_compiling() and not isinstance(min, torch.Tensor) and r._base is None and torch.is_grad_enabled():
        torch._C._name_grad_fn(r, "ClampMinBackward0")   # PyTorch's clamp_min_ node
    return r


def clamp_max_(input, max):
    r = input.clamp_(max=max)
    if not torch._C._is_compiling() and not isinstance(max, torch.Tensor) and r._base is None and torch.is_grad_enabled():
        torch._C._name_grad_fn(r, "ClampMaxBackward0")
    return r


def clip_(input, min=None, max=None):
    return input.clamp_(min, max)


def absolute(input):
    return torch.abs(input)


def absolute_(input):
    return input.abs_()


def positive(input):
    if input.dtype == torch.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def greater(input, other):
    return torch.gt(input, other)


def greater_equal(input, other):
    return torch.ge(input, other)


def less(input, other):
    return torch.lt(input, other)


def less_equal(input, other):
    return torch.le(input, other)


def not_equal(input, other):
    return torch.ne(input, other)


def _compare_(name):
    def f(input, other):
        return input.copy_(getattr(torch, name)(input, other))
    f.__name__ = name + "_"
    return f


eq_, ne_, lt_, le_, gt_, ge_ = (_compare_(n) for n in ("eq", "ne", "lt", "le", "gt", "ge"))
greater_, greater_equal_, less_, less_equal_, not_equal_ = gt_, ge_, lt_, le_, ne_


def is_complex(input):
    return False


def is_conj(input):
    return False


def is_neg(input):
    return False


def is_signed(input):
    return input.dtype not in (torch.uint8, torch.bool)


def is_nonzero(input):
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item())


def is_same_size(input, other):
    return input.shape == other.shape


def conj(input):
    return input


def resolve_conj(input):
    return input


def resolve_neg(input):
    return input


def conj_physical(input):
    return input.clone()


def real(input):
    return input


def imag(input):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def isposinf(input):
    return input == math.inf if input.is_floating_point() else torch.zeros_like(input, dtype=torch.bool)


def isneginf(input):
    return input == -math.inf if input.is_floating_point() else torch.zeros_like(input, dtype=torch.bool)


def isreal(input):
    return torch.ones_like(input, dtype=torch.bool)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    e = elements if isinstance(elements, torch.Tensor) else torch.tensor(elements)
    t = test_elements if isinstance(test_elements, torch.Tensor) else torch.tensor(test_elements)
    if t.numel() == 0:
        hit = torch.zeros(e.shape, dtype=torch.bool)
    else:
        hit = (e.reshape(-1, 1) == t.reshape(1, -1)).any(1).reshape(e.shape)
    return ~hit if invert else hit


def _int_only(name, *ts):
    for t in ts:
        if isinstance(t, torch.Tensor) and (t.is_floating_point() or t.dtype == torch.bool):
            kind = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
                    torch.bfloat16: "BFloat16", torch.bool: "Bool"}[t.dtype]
            raise RuntimeError(f'"{name}_cpu" not implemented for \'{kind}\'')


def gcd(input, other):
    """Euclid's algorithm on whole tensors, as ATen's calc_gcd per element (non-negative result)."""
    _int_only("gcd", input, other)
    a, b = torch.broadcast_tensors(input.abs(), other.abs() if isinstance(other, torch.Tensor) else
                                   torch.tensor(other).abs())
    dtype = torch.promote_types(a.dtype, b.dtype)
    a, b = a.to(dtype).clone(), b.to(dtype).clone()
    while builtins.bool((b != 0).any()):
        nz = b != 0
        r = torch.where(nz, torch.remainder(a, torch.where(nz, b, torch.ones_like(b))), torch.zeros_like(a))
        a, b = torch.where(nz, b, a), r
    return a


def lcm(input, other):
    _int_only("lcm", input, other)
    g = gcd(input, other)
    prod = (input * other).abs()
    return torch.where(g == 0, torch.zeros_like(g), torch.div(prod, torch.where(g == 0, torch.ones_like(g), g),
                                                                rounding_mode="trunc"))


def gcd_(input, other):
    return input.copy_(gcd(input, other))


def lcm_(input, other):
    return input.copy_(lcm(input, other))


def _div_rounding(input, other, rounding_mode=None, *, _inplace=False):
    """div with rounding_mode (src/torch/tensor_methods.c m_div): 'floor' is ATen's div_floor, the
    kernel floor_divide runs; 'trunc' is ATen's div_trunc: trunc(a / b) for floating types and
    C's truncating division for integers (built here from the floor quotient, exactly)."""
    if rounding_mode is None:
        return input.div_(other) if _inplace else torch.div(input, other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    if rounding_mode == "floor":
        r = torch.floor_divide(input, other)
    else:
        ints = not input.is_floating_point() and not (isinstance(other, float) or
                                                      (isinstance(other, torch.Tensor) and other.is_floating_point()))
        if ints:
            q = torch.floor_divide(input, other)
            rem = input - q * other
            r = torch.where((rem != 0) & ((input < 0) != (torch.as_tensor(other) < 0)), q + 1, q)
        else:
            r = torch.trunc(torch.div(input, other))
    return input.copy_(r) if _inplace else r


# ---- shifts: ATen's lshift/rshift kernels as this build of 1.13 runs them (scalar loops, so the
# shift count is masked as x86's shift instructions mask it: & 63 for int64, & 31 for the narrower
# types, which C++ promotes to int first); integers only ----

_FLOAT_NAME = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16"}


def _shift_operands(name, input, other):
    dt = torch.result_type(input, other)
    if dt.is_floating_point:
        raise RuntimeError(f'"{name}_cpu" not implemented for \'{_FLOAT_NAME[dt]}\'')
    mask = 63 if dt == torch.int64 else 31
    x = torch.as_tensor(input).to(dt).to(torch.int64)
    if isinstance(other, torch.Tensor):
        return dt, x, other.to(dt).to(torch.int64) & mask
    # a Python count stays a number, so a traced graph holds no constant tensor
    return dt, x, int(other) & mask


def bitwise_left_shift(input, other):
    dt, x, s = _shift_operands("lshift", input, other)
    # x * 2**s wraps modulo 2**64 as the unsigned shift does; 2**63 itself has INT64_MIN's bits
    if isinstance(s, int):
        return (x * (-9223372036854775808 if s == 63 else 1 << s)).to(dt)
    p = torch.where(s == 63, torch.full_like(s, -9223372036854775808), torch.pow(2, torch.where(s == 63, 0, s)))
    return (x * p).to(dt)


def bitwise_right_shift(input, other):
    dt, x, s = _shift_operands("rshift", input, other)
    # an arithmetic shift is the floor quotient by 2**s; by 63 only the sign is left
    if isinstance(s, int):
        return (torch.where(x < 0, -1, 0) if s == 63 else torch.floor_divide(x, 1 << s)).to(dt)
    q = torch.floor_divide(x, torch.pow(2, torch.where(s == 63, 0, s)))
    return torch.where(s == 63, torch.where(x < 0, -1, 0), q).to(dt)


def __lshift__(input, other):
    return bitwise_left_shift(input, other) if isinstance(other, (torch.Tensor, int)) else NotImplemented


def __rshift__(input, other):
    return bitwise_right_shift(input, other) if isinstance(other, (torch.Tensor, int)) else NotImplemented


def __rlshift__(input, other):
    return bitwise_left_shift(other, input) if isinstance(other, int) else NotImplemented


def __rrshift__(input, other):
    return bitwise_right_shift(other, input) if isinstance(other, int) else NotImplemented


def bitwise_left_shift_(input, other):
    return input.copy_(bitwise_left_shift(input, other))


def bitwise_right_shift_(input, other):
    return input.copy_(bitwise_right_shift(input, other))


__ilshift__, __irshift__ = bitwise_left_shift_, bitwise_right_shift_


# ---- products ------------------------------------------------------------------------------------

def inner(input, other):
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return torch.tensordot(input, other, dims=([-1], [-1]))


def vdot(input, other):
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    return _named(torch.dot(input, other), "VdotBackward0", input, other)


def chain_matmul(*matrices, out=None):
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                  "multiple parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        return matrices[0].clone()
    return torch.linalg.multi_dot(list(matrices))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """ATen's addbmm: one addmm per batch into the result, beta applied with the first only."""
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if batch1.shape[0] == 0:
        return torch.zeros_like(input) if beta == 0 else input * beta
    r = torch.addmm(input, batch1[0], batch2[0], beta=beta, alpha=alpha)
    for i in builtins.range(1, batch1.shape[0]):
        r = torch.addmm(r, batch1[i], batch2[i], alpha=alpha)
    return _named(r, "AddbmmBackward0", input, batch1, batch2)


def addbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    return input.copy_(addbmm(input, batch1, batch2, beta=beta, alpha=alpha))


# ---- diagonals, sorting, statistics --------------------------------------------------------------

def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    n = input.dim() + 1
    d1, d2 = _dim(dim1, n), _dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    m = input.shape[-1] + builtins.abs(offset)
    rest = list(input.shape[:-1])
    shape = [0] * n
    it = iter(rest)
    for i in builtins.range(n):
        shape[i] = m if i in (d1, d2) else next(it)
    return _named(diagonal_scatter(torch.zeros(shape, dtype=input.dtype), input, offset, d1, d2), "DiagEmbedBackward0",
                  input)


def diagflat(input, offset=0):
    return torch.diag(input.reshape(-1), offset)


def msort(input):
    return torch.sort(input, 0)[0]


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest among equally frequent ones) and the last
    index where it occurs, as ATen's CPU mode kernel returns them."""
    n = input.dim()
    d = _dim(dim, n) if n > 0 else 0
    x = input if n > 0 else input.reshape(1)
    if x.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    xt = x.movedim(d, -1)
    lead = xt.shape[:-1]
    rows = xt.reshape(-1, xt.shape[-1])
    vals, idxs = [], []
    for row in rows.tolist() if rows.shape[0] else []:
        counts = {}
        for v in row:
            counts[v] = counts.get(v, 0) + 1
        best = max(counts.values())
        v = min(k for k, c in counts.items() if c == best)
        vals.append(v)
        idxs.append(max(i for i, u in enumerate(row) if u == v))
    values = torch.tensor(vals, dtype=input.dtype).reshape(lead)
    indices = torch.tensor(idxs, dtype=torch.int64).reshape(lead)
    if keepdim and n > 0:
        values, indices = values.unsqueeze(d), indices.unsqueeze(d)
    return _rt_mode((values, indices))


def fill_diagonal_(input, fill_value, wrap=False):
    n = input.dim()
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    if n > 2 and len(set(input.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if n > 2:
        for i in builtins.range(input.shape[0]):
            input[(i,) * n] = fill_value
        return input
    input.diagonal().fill_(fill_value)
    if wrap:
        # numpy's wrap: a tall matrix's diagonal restarts after a skipped row, every cols + 1 rows
        rows, cols = input.shape
        for start in builtins.range(cols + 1, rows, cols + 1):
            input[start:].diagonal().fill_(fill_value)
    return input


# ---- integration -------------------------------------------------------------------------------

def trapezoid(y, x=None, *, dx=None, dim=-1):
    d = _dim(dim, y.dim())
    if y.shape[d] == 0:
        return y.sum(d)
    lo, hi = y.narrow(d, 0, y.shape[d] - 1), y.narrow(d, 1, y.shape[d] - 1)
    # (ATen multiplies by the spacing, a Scalar: MulBackward1)
    if x is None:
        return _named((lo + hi).sum(d) * ((1 if dx is None else dx) / 2), "MulBackward1", y)
    if isinstance(x, (int, float)):
        return _named((lo + hi).sum(d) * (x / 2), "MulBackward1", y)
    dxs = torch.diff(x, dim=-1 if x.dim() == 1 else dim)
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[d] = dxs.shape[0]
        dxs = dxs.reshape(shape)
    return ((lo + hi) * dxs).sum(d) / 2


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    d = _dim(dim, y.dim())
    lo, hi = y.narrow(d, 0, builtins.max(y.shape[d] - 1, 0)), y.narrow(d, 1, builtins.max(y.shape[d] - 1, 0))
    if x is None or isinstance(x, (int, float)):
        step = x if isinstance(x, (int, float)) else (1 if dx is None else dx)
        return ((lo + hi) * (step / 2)).cumsum(d)
    dxs = torch.diff(x, dim=-1 if x.dim() == 1 else dim)
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[d] = dxs.shape[0]
        dxs = dxs.reshape(shape)
    return ((lo + hi) * dxs / 2).cumsum(d)


# ---- window functions (ATen's formulas, computed in float64's steps as its kernels do) -----------

def _window(name, window_length, periodic, dtype, requires_grad, f):
    dtype = dtype if dtype is not None else torch.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length == 0:
        w = torch.empty(0, dtype=dtype)
    elif window_length == 1:
        w = torch.ones(1, dtype=dtype)
    else:
        n = window_length + 1 if periodic else window_length
        w = f(n, dtype)
        if periodic:
            w = w[:-1]
    return w.requires_grad_(True) if requires_grad else w


def _hamming(alpha, beta):
    def f(n, dtype):   # ATen: arange * (2 pi / (n - 1)), cos, * -beta, + alpha
        return torch.arange(n, dtype=dtype).mul(math.pi * 2.0 / (n - 1)).cos().mul(-beta).add(alpha)
    return f


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=None,
                requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, requires_grad, _hamming(0.5, 0.5))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=None, requires_grad=False):
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, _hamming(alpha, beta))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=None,
                    requires_grad=False):
    def f(n, dtype):   # ATen: w = arange * (pi / (n - 1)); cos(4 w) * 0.08 - cos(2 w) * 0.5 + 0.42
        w = torch.arange(n, dtype=dtype).mul(math.pi / (n - 1))
        return w.mul(4).cos().mul(0.08) - w.mul(2).cos().mul(0.5) + 0.42
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, f)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=None,
                    requires_grad=False):
    def f(n, dtype):   # ATen: arange * (2 / (n - 1)), the second half (from ((n - 1) >> 1) + 1) as 2 - w
        w = torch.arange(n, dtype=dtype).mul(2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        return torch.cat([w[:half], w[half:].mul(-1).add(2)])
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, f)
