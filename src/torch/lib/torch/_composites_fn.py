"""torch._composites_fn: the torch.<name> forms of ATen ops that Ember defines once in
torch.nn.functional (PyTorch binds both names to one kernel: torch.conv2d is F.conv2d), with
ATen's own signatures where they differ from F's (torch.batch_norm takes weight and bias first,
the losses take `reduction` as ATen's int enum: 0 none, 1 mean, 2 sum), plus the small
torch-namespace functions and constants of PyTorch 1.13 that compose from existing ops, and
the legacy Tensor.new constructor.  Imported by torch/__init__.py after torch.nn."""
import math as _math

import torch
import torch.nn.functional as F

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan

# what this build of Ember has (PyTorch's build flags; scripts test them to choose a path)
has_lapack = True
has_mkl = False
has_mkldnn = False
has_openmp = False
has_cuda = False
has_cudnn = False
has_mps = False

_REDUCTIONS = ("none", "mean", "sum")
# The losses' `reduction` defaults to 0 (none): ATen declares `int reduction=Mean`, and PyTorch's
# Python binding reads that default as 0 (torch.kl_div(a, b) is not reduced; recorded from 1.13).


def _reduction_name(reduction):
    if isinstance(reduction, str):
        return reduction
    return _REDUCTIONS[reduction]


# ---- convolutions and pools: F's functions, with ATen's defaults (stride=() is the kernel size) ----
conv1d = F.conv1d
conv2d = F.conv2d
conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d
adaptive_avg_pool1d = F.adaptive_avg_pool1d
pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
channel_shuffle = F.channel_shuffle
native_channel_shuffle = F.channel_shuffle
bilinear = F.bilinear
prelu = F.prelu
hardshrink = F.hardshrink


def _stride(stride):
    return None if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, return_indices=True)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def adaptive_max_pool1d(input, output_size):
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def constant_pad_nd(input, pad, value=0):
    return F.pad(input, pad, "constant", value)


# ---- normalisation, in ATen's argument order ----
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


# ---- activations and dropout ----
def selu(input):
    return F.selu(input)


def selu_(input):
    return F.selu(input, inplace=True)


def celu(input, alpha=1.0):
    return F.celu(input, alpha)


def celu_(input, alpha=1.0):
    return F.celu(input, alpha, inplace=True)


def threshold(input, threshold, value):
    return F.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return F.threshold(input, threshold, value, inplace=True)


def rrelu(input, lower=1. / 8, upper=1. / 3, training=False, generator=None):
    return F._rrelu(input, lower, upper, training, False, generator)


def rrelu_(input, lower=1. / 8, upper=1. / 3, training=False, generator=None):
    return F._rrelu(input, lower, upper, training, True, generator)


def dropout_(input, p, train):
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    return F.feature_alpha_dropout(input, p, train, inplace=True)


# ---- distances and losses, `reduction` as ATen's enum ----
def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    return F.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    return F.pairwise_distance(x1, x2, p, eps, keepdim)


def kl_div(input, target, reduction=0, log_target=False):
    # ATen's kl_div: reduction 'mean' is the plain mean (F.kl_div's batchmean warning is Python's)
    return F._kl_div(input, target, _reduction_name(reduction), log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction_name(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction_name(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction_name(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction_name(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction_name(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction_name(reduction),
                                              pos_weight=pos_weight)


# ---- elementwise ----
def fmax(input, other, *, out=None):
    """max ignoring NaN: ATen's kernel keeps input where input >= other or other is NaN, and its
    gradient goes to the kept side (so ties send it all to input, unlike maximum's split)"""
    r = torch.where((input >= other) | other.isnan() if isinstance(other, torch.Tensor) else input >= other,
                    input, other)
    return out.copy_(r) if out is not None else F._named(r, "FmaxBackward0", input, other)


def fmin(input, other, *, out=None):
    r = torch.where((input <= other) | other.isnan() if isinstance(other, torch.Tensor) else input <= other,
                    input, other)
    return out.copy_(r) if out is not None else F._named(r, "FminBackward0", input, other)


# ---- tensor predicates and global state ----
def is_distributed(input):
    return False


_autocast_gpu = [False, torch.float16, 0, True]   # enabled, dtype, nesting, cache enabled


def is_autocast_enabled():
    """CUDA autocast (torch.autocast("cuda")): never on in a CPU build"""
    return _autocast_gpu[0]


def set_autocast_enabled(enabled):
    _autocast_gpu[0] = bool(enabled)


def get_autocast_gpu_dtype():
    return _autocast_gpu[1]


def set_autocast_gpu_dtype(dtype):
    _autocast_gpu[1] = dtype


def autocast_increment_nesting():
    _autocast_gpu[2] += 1
    return _autocast_gpu[2]


def autocast_decrement_nesting():
    _autocast_gpu[2] -= 1
    return _autocast_gpu[2]


def is_autocast_cache_enabled():
    return _autocast_gpu[3]


def set_autocast_cache_enabled(enabled):
    _autocast_gpu[3] = bool(enabled)


def clear_autocast_cache():
    pass


# ---- Tensor.new: the legacy constructor ----
_NEW_SIGNATURES = (" * (*, torch.device device)\n"
                   "{kw}"
                   " * (torch.Storage storage)\n"
                   " * (Tensor other)\n"
                   " * (tuple of ints size, *, torch.device device)\n"
                   " * (object data, *, torch.device device)\n")


def _type_name(v):
    if isinstance(v, torch.dtype):
        return "torch.dtype"
    if isinstance(v, torch.Size):
        return "torch.Size"
    return type(v).__name__


def new(self, *args, device=None, **kwargs):
    """x.new(...): the legacy constructor (PyTorch's legacy_tensor_new): no arguments, sizes, a
    torch.Size, a sequence of data, or a tensor of x's dtype; always x's dtype, on the CPU"""
    if kwargs:
        got = ", ".join([_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
        bad = ", ".join(kwargs)
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        + _NEW_SIGNATURES.format(kw=f"      didn't match because some of the keywords were "
                                                    f"incorrect: {bad}\n"))
    if device is not None and torch.device(device).type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{torch.device(device).type} was passed")
    dtype = self.dtype
    if not args:
        return torch.empty(0, dtype=dtype)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, torch.Tensor):
            if a.dtype != dtype:
                raise TypeError(f"expected {_options(dtype)} (got {_options(a.dtype)})")
            return a.view_as(a)   # ATen returns other.alias(): the same storage
        if isinstance(a, torch.Size):
            return torch.empty(a, dtype=dtype)
        if isinstance(a, (list, tuple)) or hasattr(a, "__len__") and not isinstance(a, (str, bytes)):
            return torch.tensor(a, dtype=dtype)
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"new(): data must be a sequence (got {type(a).__name__})")
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return torch.empty(args, dtype=dtype)
    got = ", ".join(_type_name(a) for a in args)
    raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    + _NEW_SIGNATURES.format(kw=""))


_SCALAR_NAMES = {torch.float32: "float", torch.float64: "double", torch.float16: "c10::Half",
                 torch.bfloat16: "c10::BFloat16", torch.int64: "long int", torch.int32: "int",
                 torch.int16: "short int", torch.int8: "signed char", torch.uint8: "unsigned char", torch.bool: "bool"}


def _options(dtype):
    return (f"TensorOptions(dtype={_SCALAR_NAMES.get(dtype, dtype)}, device=cpu, layout=Strided, "
            f"requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


# ---- in-place forms and flat indexing (Tensor methods) ----
def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    return self.copy_(torch.addmm(self, mat1, mat2, beta=beta, alpha=alpha))


def addr_(self, vec1, vec2, *, beta=1, alpha=1):
    return self.copy_(torch.addr(self, vec1, vec2, beta=beta, alpha=alpha))


def put_(self, index, source, accumulate=False):
    """self.view(-1)[index] = source (row-major positions of self, whatever its strides); negative
    indices count from the end; with accumulate, repeated indices add up"""
    n = self.numel()
    idx = index.reshape(-1)
    if idx.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {idx.numel()}")
    if idx.numel():
        lo, hi = int(idx.min()), int(idx.max())
        bad = hi if hi >= n else lo if lo < -n else None
        if bad is not None:
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    idx = torch.where(idx < 0, idx + n, idx)
    src = source.reshape(-1).to(self.dtype)
    if self.is_contiguous():
        self.view(-1).index_put_((idx,), src, accumulate)
        return self
    flat = self.reshape(-1).clone()
    flat.index_put_((idx,), src, accumulate)
    return self.copy_(flat.view(self.shape))


def put(input, index, source, accumulate=False):
    return put_(input.clone(), index, source, accumulate)


# ---- in-place view ops and resize_: the tensor takes the geometry of the view (Tensor.set_) ----
def _become_view(self, view, name):
    """self takes the view's geometry and, when it requires grad, the view's node as its history,
    named as PyTorch names the in-place form's node (x.unsqueeze_(0): UnsqueezeBackward1)"""
    if self.requires_grad and self.is_leaf and torch.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    torch._C._become_view(self, view)
    if not torch._C._is_compiling():
        torch._C._name_grad_fn(self, name)
    return self


def unsqueeze_(self, dim):
    return _become_view(self, self.unsqueeze(dim), "UnsqueezeBackward1")


def squeeze_(self, dim=None):
    if dim is None:
        return _become_view(self, self.squeeze(), "SqueezeBackward2")
    return _become_view(self, self.squeeze(dim), "SqueezeBackward3")


def t_(self):
    if self.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return _become_view(self, self.t(), "TBackward1")


def transpose_(self, dim0, dim1):
    return _become_view(self, self.transpose(dim0, dim1), "TransposeBackward1")


swapaxes_ = swapdims_ = transpose_


def resize_(self, *sizes, memory_format=None):
    """resize_(sizes): contiguous geometry at the same storage offset, the storage grown (new
    elements uninitialized) when it is too small"""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, torch.Size)):
        sizes = tuple(sizes[0])
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    n = 1
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(sizes)}")
        n *= s
    storage = self.untyped_storage()
    need = (self.storage_offset() + n) * self.element_size()
    if storage.nbytes() < need:
        # Ember's storages have a fixed size: the tensor moves to a larger one holding the old
        # bytes (PyTorch grows the storage in place, so other tensors on it would see the growth)
        old = torch.empty(0, dtype=self.dtype).set_(storage)
        grown = torch.empty(need // self.element_size(), dtype=self.dtype)
        grown[:old.numel()].copy_(old)
        storage = grown.untyped_storage()
    strides, acc = [], 1
    for s in reversed(sizes):
        strides.append(acc)
        acc *= max(s, 1)
    return self.set_(storage, self.storage_offset(), sizes, tuple(reversed(strides)))


def resize_as_(self, the_template, memory_format=None):
    return resize_(self, the_template.shape)


# ---- embedding's max_norm ----
def embedding_renorm_(input, indices, max_norm, norm_type):
    """torch.embedding_renorm_(weight, indices, max_norm, norm_type): each distinct row indices
    names (in sorted order), if its norm_type-norm exceeds max_norm, scaled in place by
    max_norm / (norm + 1e-7) (ATen's embedding_renorm_cpu_: the norm read as a double)"""
    with torch.no_grad():
        for i in torch.unique(indices.reshape(-1)).tolist():
            row = input[i]
            norm = row.norm(norm_type).item()
            if norm > max_norm:
                row.mul_(max_norm / (norm + 1e-7))
    return input


def _no_grad_embedding_renorm_(weight, input, max_norm, norm_type):
    """F.embedding's max_norm step: the weight's looked-up rows renormalised in place; returns the
    contiguous input the lookup then uses"""
    input = input.contiguous()
    embedding_renorm_(weight, input, max_norm, norm_type)
    return input
