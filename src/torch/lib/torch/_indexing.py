"""torch's indexing and data-movement functions beyond the hand-bound natives: scatter (src or
value, reduce='add'/'multiply'), scatter_reduce, kthvalue, unique / unique_consecutive,
nonzero / argwhere / where(condition), bincount, histc, count_nonzero run ops of the op table
through torch._C._index_op; index_copy, index_fill, tensor_split, Tensor.unfold, meshgrid, take
and take_along_dim decompose into traced ops (index_put, slicing, as_strided, expand, gather), as
ATen's CompositeImplicit kernels do.  PyTorch's signatures and argument errors are checked here;
shape and dtype errors come from the kernels, in ATen's words.  Tensor methods of the same names
call these functions with self first (src/torch/index_ops.c)."""
import warnings

import torch
from torch._C import _index_op

_warned = set()


def _warn_once(key, msg, depth=0):
    # TORCH_WARN_ONCE: the first call in the process warns, attributed to the caller's line
    # (depth: helper frames between the torch function and _warn_once)
    if key not in _warned:
        _warned.add(key)
        warnings.warn(msg, UserWarning, stacklevel=3 + depth)


def _dim(dim, ndim):
    n = ndim if ndim > 0 else 1
    if dim < -n or dim >= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def kthvalue(input, k, dim=-1, keepdim=False):
    return _index_op("kthvalue", (input,), dim=dim, start=k, keepdim=keepdim)


_SCATTER = {"add": 1, "multiply": 2}
_SCATTER_REDUCE = {"sum": 1, "prod": 2, "mean": 3, "amax": 4, "amin": 5}


def _scatter(name, input, dim, index, src, value, reduce):
    if src is not None and not isinstance(src, torch.Tensor):
        src, value = None, src
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    code = 0
    if reduce is not None:
        if reduce not in _SCATTER:
            raise RuntimeError("reduce argument must be either add or multiply.")
        code = _SCATTER[reduce]
    if src is not None:
        return _index_op(name, (input, index, src), dim=dim, start=code)
    if isinstance(value, torch.Tensor):
        value = value.item()
    return _index_op(name, (input, index), dim=dim, start=code, scalar=value)


def _scatter_reduce(name, input, dim, index, src, reduce, include_self):
    if reduce not in _SCATTER_REDUCE:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin.")
    r = _index_op(name, (input, index, src), dim=dim, start=_SCATTER_REDUCE[reduce], accumulate=include_self)
    # ATen warns after its shape checks (so a bad dim raises first)
    _warn_once("scatter_reduce", "scatter_reduce() is in beta and the API may change at any time. (Triggered internally at  "
               "./aten/src/ATen/native/TensorAdvancedIndexing.cpp:1615.)", 1)
    return r


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    return _scatter("scatter", input, dim, index, src, value, reduce)


def scatter_(input, dim, index, src=None, value=None, *, reduce=None):
    # the table's in-place op: ScatterBackward0 like PyTorch's
    return _scatter("scatter_", input, dim, index, src, value, reduce)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    return _scatter_reduce("scatter_reduce", input, dim, index, src, reduce, include_self)


def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    return _scatter_reduce("scatter_reduce_", input, dim, index, src, reduce, include_self)


def _index_vector(index, name):
    if index.dtype != torch.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got {_cname(index.dtype)}")
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index should have dimension 1 or 0 (got {index.dim()})")
    return index.reshape(-1)


def _cname(dtype):
    return {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16",
            torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte",
            torch.bool: "Bool"}.get(dtype, str(dtype))


def index_copy(input, dim, index, source):
    d = _dim(dim, input.dim())
    idx = _index_vector(index, "index_copy_")
    if source.dim() != input.dim() and source.dim() > 0 and input.dim() > 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must match. "
                         f"Source dimensionality ({source.dim()}), destination dimensionality ({input.dim()})")
    n = source.shape[d] if source.dim() > 0 else 1
    if idx.numel() != n:
        raise IndexError(f"index_copy_(): Number of indices ({idx.numel()}) should be equal to source.size(dim) ({n})")
    # ATen compares the slice shapes (the dims but dim) and names the slice's dim
    dst_slice = [input.shape[k] for k in range(input.dim()) if k != d]
    src_slice = [source.shape[k] for k in range(source.dim()) if k != d] if source.dim() > 0 else []
    for k in range(min(len(dst_slice), len(src_slice))):
        if dst_slice[k] != src_slice[k]:
            raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. "
                               f"Destination slice shape: {dst_slice[k]} at dimension {k} and source slice shape: "
                               f"{src_slice[k]} at dimension {k}.")
    if source.dtype != input.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_cname(input.dtype)} and (source) {_cname(source.dtype)}")
    if input.dim() == 0:
        return _index_op("index_put", (input.reshape(1), source.reshape(1), idx), dim=0).reshape(())
    return _index_op("index_put", (input, source, idx), dim=d)


def index_fill(input, dim, index, value):
    d = _dim(dim, input.dim())
    if index.dtype != torch.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.dim() > 1:
        raise IndexError("Index has to be a vector/scalar")
    if isinstance(value, torch.Tensor):
        if value.dim() != 0:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.dim()} dimension(s).")
        v = value.to(input.dtype)
    else:
        v = torch.tensor(value, dtype=input.dtype)
    if input.dim() == 0:
        return _index_op("index_put", (input.reshape(1), v, index.reshape(-1)), dim=0).reshape(())
    return _index_op("index_put", (input, v, index.reshape(-1)), dim=d)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    # sorted=False (no dim): the order of ATen's CPU hash set (src/tensor/reorder.c's hash_order)
    vals, inv, cnt = _index_op("unique", (input,), dim=0 if dim is None else dim, has_dim=dim is not None,
                               accumulate=not sorted)
    if return_inverse and return_counts:
        return vals, inv, cnt
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, cnt
    return vals


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    vals, inv, cnt = _index_op("unique", (input,), dim=0 if dim is None else dim, has_dim=dim is not None, start=1)
    if return_inverse and return_counts:
        return vals, inv, cnt
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, cnt
    return vals


def nonzero(input, *, as_tuple=False):
    if not as_tuple:
        return _index_op("nonzero", (input,))
    x = input.reshape(1) if input.dim() == 0 else input
    return tuple(c.contiguous() for c in _index_op("nonzero", (x,)).unbind(1))


def argwhere(input):
    return _index_op("nonzero", (input,))


def _where1(condition):
    return nonzero(condition, as_tuple=True)


def count_nonzero(input, dim=None):
    nz = input != 0
    if dim is None:
        return nz.sum()
    return nz.sum(dim)


def bincount(input, weights=None, minlength=0):
    return _index_op("bincount", (input, weights) if weights is not None else (input,), start=minlength)


def histc(input, bins=100, min=0, max=0):
    return _index_op("histc", (input,), start=bins, scalar=min, scalar2=max)


def tensor_split(input, indices_or_sections, dim=0):
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _dim(dim, input.dim())
    if isinstance(indices_or_sections, torch.Tensor):
        if indices_or_sections.dtype != torch.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have integer dtype, but got "
                               f"{indices_or_sections.dtype}")
        if indices_or_sections.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {indices_or_sections.dim()} dims")
        indices_or_sections = indices_or_sections.tolist()
    size = input.shape[d]
    pre = (slice(None),) * d
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        lo, extra = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            stop = start + lo + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        bounds, start = [], 0
        for i in indices_or_sections:
            bounds.append((start, i))
            start = i
        bounds.append((start, size))
    return tuple(input[pre + (slice(a, b),)] for a, b in bounds)


def unfold(input, dimension, size, step):
    nd = input.dim()
    d = _dim(dimension, nd)
    length = input.shape[d] if nd > 0 else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if nd == 0:
        return input.as_strided((size,), (1,), input.storage_offset())
    shape = list(input.shape)
    strides = list(input.stride())
    shape[d] = (length - size) // step + 1
    shape.append(size)
    strides.append(strides[d])
    strides[d] = strides[d] * step
    return input.as_strided(shape, strides, input.storage_offset())


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        _warn_once("meshgrid", "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                   "argument. (Triggered internally at  ./aten/src/ATen/native/TensorShape.cpp:3190.)")
        indexing = "ij"
    if len(tensors) == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        out.append(t.reshape(view).expand(shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def take(input, index):
    if index.dtype != torch.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_cname(index.dtype)}")
    return input.reshape(-1)[index]


def take_along_dim(input, indices, dim=None):
    if indices.dtype != torch.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_cname(indices.dtype)}")
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, but got "
                           f"{input.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    d = _dim(dim, input.dim())
    shape = []
    for k in range(input.dim()):
        a = indices.shape[k] if k == d else input.shape[k]
        b = indices.shape[k]
        if a != b and a != 1 and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
                               f"dimension {k}")
        shape.append(b if a == 1 else a)
    ishape = list(shape)
    sshape = list(shape)
    sshape[d] = input.shape[d]
    return input.expand(sshape).gather(d, indices.expand(ishape))
