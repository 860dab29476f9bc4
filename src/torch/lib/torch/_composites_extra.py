"""More torch functions PyTorch defines by decomposition (ATen's CompositeImplicit kernels, or
small kernels whose answer a decomposition gives exactly), written over Ember's traced ops so
autograd and torch.compile need nothing new: signbit, dist, movedim/moveaxis, diff, nansum,
nanmean, median/nanmedian, aminmax, rot90, kron, cartesian_prod, block_diag,
tril_indices/triu_indices, atleast_3d, column_stack, dstack, addmv, addr, cross, searchsorted,
bucketize, and torch.linalg's cross, multi_dot and matrix_power.  Gradients come from the ops they
decompose into; where PyTorch records one node for the op, the result's grad_fn is given its name
(_named: MedianBackward0, Rot90Backward0, CdistBackward0, ...).  The Tensor methods of
these names are torch/_composites.py's (src/torch/tensor_methods.c m_composite)."""
import torch
from torch._C import _rt_median, _rt_nanmedian, _rt_aminmax
from torch._mathops import _outable


def _named(out, name, *inputs):
    """out, its grad_fn named as PyTorch's one node for the op decomposed here (F._named)"""
    if not torch._C._is_compiling() and isinstance(out, torch.Tensor):   # (not an fx Proxy)
        torch._C._name_grad_fn(out, name, *inputs)
    return out


def _dim(d, n, name="dim"):
    lo, hi = (-n, n - 1) if n > 0 else (-1, 0)
    if d < lo or d > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return d + n if d < 0 else d


_SCALAR_TYPE = {torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte",
                torch.bool: "Bool", torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
                torch.bfloat16: "BFloat16"}


@_outable("signbit")
def signbit(input):
    if input.is_floating_point():
        return torch.copysign(torch.ones_like(input), input) < 0
    if input.dtype == torch.bool:
        return torch.zeros_like(input)
    return input < 0


def dist(input, other, p=2):
    return _named(torch.linalg.vector_norm(input - other, p), "DistBackward0", input, other)


def movedim(input, source, destination):
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
                           f"the same number of dims as destination ({dst} dims)")
    n = input.dim()
    src = [_dim(d, n) for d in src]
    dst = [_dim(d, n) for d in dst]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source) if not isinstance(source, int) else [source]})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination) if not isinstance(destination, int) else [destination]})")
    order = [-1] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [o if o >= 0 else next(rest) for o in order]
    return input.permute(*order)


moveaxis = movedim


@_outable("diff")
def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _dim(dim, input.dim())
    parts = [t for t in (prepend, input, append) if t is not None]
    x = torch.cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = torch.logical_xor(hi, lo) if x.dtype == torch.bool else hi - lo
    return x


@_outable("nansum")
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    x = input.masked_fill(input.isnan(), 0) if input.is_floating_point() else input
    if dim is None:
        r = x.sum(dtype=dtype) if dtype is not None else x.sum()
    else:
        r = x.sum(dim, keepdim=keepdim, dtype=dtype) if dtype is not None else x.sum(dim, keepdim=keepdim)
    return _named(r, "NansumBackward0", input)


@_outable("nanmean")
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not input.is_floating_point():
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got {_SCALAR_TYPE[input.dtype]}")
    count = (~input.isnan()).sum() if dim is None else (~input.isnan()).sum(dim, keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def _median(input, dim, keepdim, ignore_nan, rt):
    if dim is None:
        x = input.reshape(-1)
        if ignore_nan:
            x = x[~x.isnan()] if input.is_floating_point() else x
        elif input.is_floating_point() and bool(x.isnan().any()):
            return x[x.isnan()][0]
        if x.numel() == 0:
            return torch.full((), float("nan"), dtype=input.dtype)
        return torch.kthvalue(x, (x.numel() - 1) // 2 + 1).values
    d = _dim(dim, input.dim())
    n = input.shape[d] if input.dim() else 1
    if n == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    if not input.is_floating_point() or not bool(input.isnan().any()):
        v, i = torch.kthvalue(input, (n - 1) // 2 + 1, d, keepdim)
        return rt((v, i))
    # rows with NaN: median propagates the first NaN, nanmedian takes the median of the rest
    rows = input.movedim(d, -1).reshape(-1, n)
    vals, idx = [], []
    for r in rows:
        keep = ~r.isnan()
        if not ignore_nan and not bool(keep.all()):
            j = int((~keep).nonzero()[0])
        else:
            pos = keep.nonzero().reshape(-1)
            m = pos.numel()
            if m == 0:
                j = 0
            else:
                k = int(torch.kthvalue(r[pos], (m - 1) // 2 + 1).indices)
                j = int(pos[k])
        vals.append(r[j])
        idx.append(j)
    shape = list(input.movedim(d, -1).shape[:-1])
    v = torch.stack(vals).reshape(shape)
    i = torch.tensor(idx, dtype=torch.int64).reshape(shape)
    if keepdim:
        v, i = v.unsqueeze(d), i.unsqueeze(d)
    return rt((v, i))


def _median_named(r, name, input, dim):
    # PyTorch's nodes: median()/nanmedian() MedianBackward0, with a dim MedianBackward1 (on values)
    _named(r if dim is None else r[0], name + ("Backward0" if dim is None else "Backward1"), input)
    return r


@_outable("median")
def median(input, dim=None, keepdim=False):
    return _median_named(_median(input, dim, keepdim, False, _rt_median), "Median", input, dim)


@_outable("nanmedian")
def nanmedian(input, dim=None, keepdim=False):
    return _median_named(_median(input, dim, keepdim, True, _rt_nanmedian), "Nanmedian", input, dim)


@_outable("aminmax")
def aminmax(input, *, dim=None, keepdim=False):
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
        lo, hi = input.amin(), input.amax()
        if keepdim:
            lo, hi = lo.reshape([1] * input.dim()), hi.reshape([1] * input.dim())
        return _rt_aminmax((lo, hi))
    return _rt_aminmax((input.amin(dim, keepdim), input.amax(dim, keepdim)))


def rot90(input, k=1, dims=(0, 1)):
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    n = input.dim()
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == n:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    d0, d1 = _dim(dims[0], n), _dim(dims[1], n)
    k %= 4
    if k == 1:
        out = input.flip(d1).transpose(d0, d1)
    elif k == 2:
        out = input.flip(d0, d1)
    elif k == 3:
        out = input.flip(d0).transpose(d0, d1)
    else:
        out = input.clone()
    return _named(out, "Rot90Backward0", input)


@_outable("kron")
def kron(input, other):
    n = max(input.dim(), other.dim())
    a = input.reshape([1] * (n - input.dim()) + list(input.shape))
    b = other.reshape([1] * (n - other.dim()) + list(other.shape))
    sa, sb = list(a.shape), list(b.shape)
    ia, ib = [], []
    for x, y in zip(sa, sb):
        ia += [x, 1]
        ib += [1, y]
    return _named((a.reshape(ia) * b.reshape(ib)).reshape([x * y for x, y in zip(sa, sb)]), "UnsafeViewBackward0",
                  input, other)


def cartesian_prod(*tensors):
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = torch.meshgrid(*tensors, indexing="ij")
    return torch.stack([g.reshape(-1) for g in grids], 1)


def block_diag(*tensors):
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t.dim()} dimensions")
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not mats:
        return torch.empty(1, 0)
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = torch.promote_types(dtype, m.dtype)
    cols = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        parts = [torch.zeros(r, left, dtype=dtype), m.to(dtype), torch.zeros(r, cols - left - c, dtype=dtype)]
        rows.append(torch.cat(parts, 1))
        left += c
    return _named(torch.cat(rows, 0), "BlockDiagBackward0", *tensors)


def _tri_indices(row, col, offset, dtype, lower):
    rs, cs = [], []
    for i in range(row):
        for j in range(col):
            if (j - i <= offset) if lower else (j - i >= offset):
                rs.append(i)
                cs.append(j)
    return torch.tensor([rs, cs], dtype=dtype).reshape(2, len(rs))


def tril_indices(row, col, offset=0, *, dtype=torch.long, device=None, layout=None):
    return _tri_indices(row, col, offset, dtype, True)


def triu_indices(row, col, offset=0, *, dtype=torch.long, device=None, layout=None):
    return _tri_indices(row, col, offset, dtype, False)


def atleast_3d(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = []
    for t in ts:
        if t.dim() == 0:
            t = t.reshape(1, 1, 1)
        elif t.dim() == 1:
            t = t.unsqueeze(0).unsqueeze(-1)   # as ATen's atleast_3d (UnsqueezeBackward0)
        elif t.dim() == 2:
            t = t.unsqueeze(-1)
        out.append(t)
    out = tuple(out)
    return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out


@_outable("column_stack")
def column_stack(tensors):
    ts = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors]
    return torch.cat(ts, 1)


@_outable("dstack")
def dstack(tensors):
    return torch.cat(atleast_3d(tuple(tensors)), 2)


@_outable("addmv")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    prod = mat @ vec
    prod = prod if alpha == 1 else prod * alpha
    if beta == 0:
        out = prod.expand(torch.broadcast_shapes(input.shape, prod.shape)).clone()
    else:
        out = (input if beta == 1 else input * beta) + prod
    return _named(out, "AddmvBackward0", input, mat, vec)


@_outable("addr")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D" if vec1.dim() != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    # ATen's addr_kernel in the common dtype: alpha * vec1[i] * vec2[j] (alpha times vec1 first),
    # plus beta * self[i, j] unless beta is 0 (then self's NaNs do not propagate)
    ct = torch.promote_types(torch.promote_types(input.dtype, vec1.dtype), vec2.dtype)
    v1 = vec1.to(ct)
    prod = (v1 if alpha == 1 else alpha * v1).reshape(-1, 1) * vec2.to(ct)
    if beta == 0:
        out = prod.expand(torch.broadcast_shapes(input.shape, prod.shape)).clone()
    else:
        out = input.to(ct) * beta + prod
    return _named(out, "AddrBackward0", input, vec1, vec2)


def _cross(input, other, d, dim):
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and {other.shape[d]}")
    a0, a1, a2 = (input.narrow(d, i, 1) for i in range(3))
    b0, b1, b2 = (other.narrow(d, i, 1) for i in range(3))
    return torch.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


@_outable("linalg.cross")
def linalg_cross(input, other, *, dim=-1):
    if input.dim() != other.dim():
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    shape = torch.broadcast_shapes(input.shape, other.shape)
    return _named(_cross(input.expand(shape), other.expand(shape), _dim(dim, len(shape)), dim), "LinalgCrossBackward0",
                  input, other)


@_outable("cross")
def cross(input, other, dim=None):
    if dim is None:
        shape = torch.broadcast_shapes(input.shape, other.shape)
        dims = [i for i, s in enumerate(shape) if s == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims[0]
    return linalg_cross(input, other, dim=dim)


@_outable("linalg.multi_dot")
def multi_dot(tensors):
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first_1d, last_1d = tensors[0].dim() == 1, tensors[-1].dim() == 1
    ms = list(tensors)
    if first_1d:
        ms[0] = ms[0].unsqueeze(0)
    if last_1d:
        ms[-1] = ms[-1].unsqueeze(1)
    if n == 2:
        out = ms[0] @ ms[1]
    else:
        # ATen's order: the cheapest parenthesisation (dynamic programming over the chain)
        p = [m.shape[0] for m in ms] + [ms[-1].shape[1]]
        cost = [[0] * n for _ in range(n)]
        split = [[0] * n for _ in range(n)]
        for length in range(1, n):
            for i in range(n - length):
                j = i + length
                cost[i][j] = None
                for k in range(i, j):
                    c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                    if cost[i][j] is None or c < cost[i][j]:
                        cost[i][j], split[i][j] = c, k

        def chain(i, j):
            if i == j:
                return ms[i]
            k = split[i][j]
            return chain(i, k) @ chain(k + 1, j)

        out = chain(0, n - 1)
    if first_1d and last_1d:
        return out.reshape(())
    if first_1d:
        return out.squeeze(0)
    if last_1d:
        return out.squeeze(1)
    return out


@_outable("linalg.matrix_power")
def matrix_power(A, n):
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, "
                           f"but they are {A.shape[-2] if A.dim() >= 2 else 0} by {A.shape[-1] if A.dim() else 0} matrices")
    if n == 0:
        return torch.eye(A.shape[-1], dtype=A.dtype).expand(A.shape).clone()
    if n < 0:
        A, n = torch.linalg.inv(A), -n
    if n == 1:
        return A.clone()
    if n == 2:
        return A @ A
    if n == 3:
        return (A @ A) @ A
    # ATen's binary decomposition: z runs through A^(2^k), the result collects the set bits
    z = result = None
    while n > 0:
        z = A if z is None else z @ z
        if n & 1:
            result = z if result is None else result @ z
        n >>= 1
    return result


@_outable("searchsorted")
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = sorted_sequence if sorter is None else sorted_sequence.gather(-1, sorter)
    scalar = not isinstance(input, torch.Tensor)
    values = torch.tensor(input, dtype=seq.dtype) if scalar else input
    if seq.dim() > 1 and list(seq.shape[:-1]) != list(values.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           "of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor {list(values.shape)}")
    v = values.unsqueeze(-1)
    s = seq if seq.dim() == 1 else seq.unsqueeze(-2)
    below = (s <= v) if right else (s < v)
    r = below.sum(-1)
    return r.to(torch.int32) if out_int32 else r


@_outable("bucketize")
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def broadcast_shapes(*shapes):
    out = []
    for i, shape in enumerate(shapes):
        shape = [shape] if isinstance(shape, int) else list(shape)
        for k, s in enumerate(reversed(shape)):
            if s < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {shape}")
            if k == len(out):
                out.append(s)
            elif out[k] == 1:
                out[k] = s
            elif s != 1 and s != out[k]:
                raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape")
    return torch.Size(reversed(out))


@_outable("float_power")
def float_power(input, exponent):
    if isinstance(input, torch.Tensor):
        base = input.to(torch.float64)
    else:
        base = float(input)
    e = exponent.to(torch.float64) if isinstance(exponent, torch.Tensor) else float(exponent)
    return torch.pow(base, e)


@_outable("ldexp")
def ldexp(input, other):
    return input * torch.pow(2.0, other)


@_outable("heaviside")
def heaviside(input, values):
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    pos = (input > 0).to(input.dtype)
    return torch.where(input == 0, values, pos)


def vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    x = x if x.is_floating_point() else x.to(torch.int64)
    cols = [torch.ones_like(x)] if n > 0 else []
    for _ in range(1, n):
        cols.append(cols[-1] * x)
    out = torch.stack(cols, 1) if cols else torch.empty(x.shape[0], 0, dtype=x.dtype)
    return out if increasing else out.flip(1)


def cov(input, *, correction=1, fweights=None, aweights=None):
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if not x.is_floating_point():
        x = x.to(torch.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = torch.tensor(float(n), dtype=x.dtype)
        norm_factor = w_sum - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if aweights is None or correction == 0:
            norm_factor = w_sum - correction
        else:
            norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    norm_factor = torch.clamp(norm_factor, min=0) if isinstance(norm_factor, torch.Tensor) else max(norm_factor, 0)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = (xw @ xm.t()) / norm_factor
    return c.squeeze()


def corrcoef(input):
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return c.clamp(-1, 1)


@_outable("renorm")
def renorm(input, p, dim, maxnorm):
    d = _dim(dim, input.dim())
    dims = [i for i in range(input.dim()) if i != d]
    norms = torch.linalg.vector_norm(input, p, dims, keepdim=True)
    factor = torch.where(norms > maxnorm, maxnorm / (norms + 1e-7), torch.ones_like(norms))
    return _named(input * factor, "RenormBackward0", input)


@_outable("quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, False)


@_outable("nanquantile")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, True)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    name = "nanquantile" if ignore_nan else "quantile"
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           f"Got {interpolation}")
    if not input.is_floating_point():
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    scalar_q = not isinstance(q, torch.Tensor)
    qt = torch.tensor([float(q)], dtype=input.dtype) if scalar_q else q.reshape(-1)
    if scalar_q and not 0 <= float(q) <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    if bool(((qt < 0) | (qt > 1)).any()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if dim is None:
        x = input.reshape(-1, 1)
        d = 0
    else:
        d = _dim(dim, input.dim())
        x = input.movedim(d, -1).reshape(-1, input.shape[d]).t()
    # x: (n, rows); sort each column, NaN last
    s = x.sort(0).values
    n = s.shape[0]
    nan_count = s.isnan().sum(0)
    valid = (n - nan_count) if ignore_nan else torch.full_like(nan_count, n)
    rank = qt.reshape(-1, 1) * (valid.to(input.dtype) - 1)
    if interpolation == "lower":
        rank = rank.floor()
    elif interpolation == "higher":
        rank = rank.ceil()
    elif interpolation == "nearest":
        rank = rank.round()
    lo = rank.floor().clamp(min=0).to(torch.int64)
    hi = rank.ceil().clamp(min=0).to(torch.int64)
    cols = s.shape[1]
    vlo = s.gather(0, lo.clamp(max=n - 1).expand(-1, cols) if lo.shape[1] == 1 else lo.clamp(max=n - 1))
    vhi = s.gather(0, hi.clamp(max=n - 1).expand(-1, cols) if hi.shape[1] == 1 else hi.clamp(max=n - 1))
    if interpolation == "midpoint":
        out = torch.lerp(vlo, vhi, torch.full_like(vlo, 0.5))
    else:
        w = rank - lo.to(input.dtype)
        out = torch.lerp(vlo, vhi, w.expand_as(vlo) if w.shape != vlo.shape else w)
    if not ignore_nan:
        out = out.masked_fill((nan_count > 0).unsqueeze(0).expand_as(out), float("nan"))
    else:
        out = out.masked_fill((valid == 0).unsqueeze(0).expand_as(out), float("nan"))
    # out: (len(q), rows) -> q dims first, then the kept dims
    if dim is None:
        out = out.reshape(-1)
        if keepdim:
            out = out.reshape([-1] + [1] * input.dim())
    else:
        rest = list(input.movedim(d, -1).shape[:-1])
        out = out.reshape([-1] + rest)
        if keepdim:
            out = out.unsqueeze(d + 1)
    return out[0] if scalar_q else out


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    r1, r2 = x1.shape[-2], x2.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or
                         (compute_mode == "use_mm_for_euclid_dist_if_necessary" and (r1 > 25 or r2 > 25)))
    if use_mm:
        # ATen's _euclidean_dist: |x|^2 - 2 x.y + |y|^2 through one matrix product, clamped at 0
        x1_norm = x1.pow(2).sum(-1, keepdim=True)
        x2_norm = x2.pow(2).sum(-1, keepdim=True)
        x1_pad = torch.ones_like(x1_norm)
        x2_pad = torch.ones_like(x2_norm)
        x1_ = torch.cat([x1.mul(-2), x1_norm, x1_pad], -1)
        x2_ = torch.cat([x2, x2_pad, x2_norm], -1)
        # (ATen views _euclidean_dist's result to the output shape: ViewBackward0)
        return _named((x1_ @ x2_.transpose(-2, -1)).clamp_min(1e-30).sqrt(), "ViewBackward0", x1, x2)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return _named(torch.linalg.vector_norm(diff, p, -1), "CdistBackward0", x1, x2)


def combinations(input, r=2, with_replacement=False):
    """torch.combinations: the r-combinations of a 1-D tensor's elements, in itertools' order, one
    row each (ATen builds them with meshgrid and masks, then stacks the columns)."""
    import itertools
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    cols = [torch.tensor([row[k] for row in rows], dtype=torch.long) for k in range(r)]
    return torch.stack([input[c] for c in cols], 1)
