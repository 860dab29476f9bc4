"""torch for Ember scripts: the C tensor library and autograd engine bound to the VM (torch._C),
plus the Python-level packages (autograd, nn, optim, utils, ...)."""
_bool = bool   # the builtins that `from torch._C import *` shadows with torch.bool, torch.int, torch.float
from torch._C import *
import torch._C as _C
from torch._C import _set_grad_enabled, is_grad_enabled


class _GradModeBase:
    """A context manager that is also a decorator (torch.no_grad() / @torch.no_grad())."""

    def __call__(self, func):
        mode = self

        def wrapper(*args, **kwargs):
            with mode.__class__(*mode._args):
                return func(*args, **kwargs)

        wrapper.__name__ = getattr(func, "__name__", "wrapper")
        wrapper.__qualname__ = getattr(func, "__qualname__", "wrapper")
        wrapper.__doc__ = getattr(func, "__doc__", None)
        wrapper.__wrapped__ = func
        return wrapper


class no_grad(_GradModeBase):
    def __init__(self):
        self._args = ()
        self.prev = False

    def __enter__(self):
        self.prev = _set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback):
        _set_grad_enabled(self.prev)
        return False


class enable_grad(_GradModeBase):
    def __init__(self):
        self._args = ()
        self.prev = False

    def __enter__(self):
        self.prev = _set_grad_enabled(True)

    def __exit__(self, exc_type, exc_value, traceback):
        _set_grad_enabled(self.prev)
        return False


class set_grad_enabled(_GradModeBase):
    def __init__(self, mode):
        self._args = (mode,)
        self.prev = _set_grad_enabled(_bool(mode))

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        _set_grad_enabled(self.prev)
        return False


_inference_mode = False   # torch.is_inference_mode_enabled()


class inference_mode(_GradModeBase):
    # grad mode off inside, and is_inference_mode_enabled() true (Ember makes no separate
    # "inference tensors": a tensor made inside is an ordinary one that does not require grad)
    def __init__(self, mode=True):
        self._args = (mode,)
        self.mode = mode
        self.prev = False
        self.prev_inference = False

    def __enter__(self):
        global _inference_mode
        self.prev_inference = _inference_mode
        _inference_mode = _bool(self.mode)
        # (inference_mode(False) turns grad mode on, as c10::InferenceMode(false) does)
        self.prev = _set_grad_enabled(not self.mode)

    def __exit__(self, exc_type, exc_value, traceback):
        global _inference_mode
        _set_grad_enabled(self.prev)
        _inference_mode = self.prev_inference
        return False


def dropout(input, p, train):
    if (not train or p == 0.0 or input.numel() == 0) and 0.0 <= p <= 1.0:
        return input  # as F.dropout: PyTorch 1.13's CPU dropout returns its input itself
    out = _C._nn.dropout(input, p, train)
    if not _C._is_compiling() and isinstance(out, Tensor):
        _C._name_grad_fn(out, "MulBackward0", input)   # as F.dropout: PyTorch 1.13's CPU input * mask
    return out


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return _C._nn.layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _C._nn.embedding(indices, weight, None if padding_idx == -1 else padding_idx, None, 2.0, scale_grad_by_freq)


def typename(o):
    """The type of o as a string: "torch.FloatTensor" for tensors, "module.QualName" otherwise."""
    if isinstance(o, Tensor):
        return o.type()
    module = ''
    class_name = ''
    if hasattr(o, '__module__') and o.__module__ != 'builtins' \
            and o.__module__ != '__builtin__' and o.__module__ is not None:
        module = o.__module__ + '.'
    if hasattr(o, '__qualname__'):
        class_name = o.__qualname__
    elif hasattr(o, '__name__'):
        class_name = o.__name__
    else:
        class_name = o.__class__.__name__
    return module + class_name


def _assert(condition, message):
    """A wrapper around Python's assert which is symbolically traceable."""
    if type(condition) is not Tensor and torch.overrides.has_torch_function((condition,)):
        return torch.overrides.handle_torch_function(_assert, (condition,), condition, message)
    assert condition, message


def is_inference_mode_enabled():
    return _inference_mode


def is_floating_point(input):
    return input.is_floating_point()


# torch.finfo / torch.iinfo: the numeric limits of each dtype (IEEE binary16/32/64, bfloat16's
# 8-bit exponent and 7-bit mantissa, two's-complement integers), as c10's numeric_limits give them.
_FINFO = {
    # dtype name: (bits, eps, max, tiny, resolution)
    "float32": (32, 2.0 ** -23, (2.0 - 2.0 ** -23) * 2.0 ** 127, 2.0 ** -126, 1e-06),
    "float64": (64, 2.0 ** -52, 1.7976931348623157e+308, 2.0 ** -1022, 1e-15),
    "float16": (16, 2.0 ** -10, 65504.0, 2.0 ** -14, 0.001),
    "bfloat16": (16, 2.0 ** -7, (2.0 - 2.0 ** -7) * 2.0 ** 127, 2.0 ** -126, 0.01),
}


class finfo:
    def __init__(self, type=None):
        if type is None:
            type = get_default_dtype()
        name = str(type).replace("torch.", "")
        if not isinstance(type, dtype) or name not in _FINFO:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        self.bits, self.eps, self.max, self.tiny, self.resolution = _FINFO[name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


_IINFO = {"int64": 64, "int32": 32, "int16": 16, "int8": 8, "uint8": 8}


class iinfo:
    def __init__(self, type):
        name = str(type).replace("torch.", "")
        if not isinstance(type, dtype) or name not in _IINFO:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        self.bits = _IINFO[name]
        if name == "uint8":
            self.min, self.max = 0, 255
        else:
            self.min, self.max = -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


class autocast(_GradModeBase):
    """torch.autocast: on the CPU, the lower-precision ops (mm, matmul, bmm, addmm, linear, ...)
    cast their floating inputs to bfloat16 while it is active (a context manager and a decorator)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self._args = (device_type, dtype, enabled, cache_enabled)
        self.device = device_type
        if device_type == "cuda":
            # PyTorch without CUDA: a warning, and the block runs in full precision
            import warnings
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
            self._enabled = False
            return
        if device_type != "cpu":
            raise RuntimeError("User specified autocast device_type must be 'cuda' or 'cpu'")
        self.fast_dtype = _C.get_autocast_cpu_dtype() if dtype is None else dtype
        self._enabled = enabled
        if self.fast_dtype != bfloat16:
            import warnings
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtype of torch.bfloat16 currently.")
            self._enabled = False

    def __enter__(self):
        if self.device != "cpu":
            return self
        self.prev = _C.is_autocast_cpu_enabled()
        self.prev_fastdtype = _C.get_autocast_cpu_dtype()
        _C.set_autocast_cpu_enabled(self._enabled)
        if self._enabled:
            _C.set_autocast_cpu_dtype(self.fast_dtype)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self.device != "cpu":
            return False
        _C.set_autocast_cpu_enabled(self.prev)
        _C.set_autocast_cpu_dtype(self.prev_fastdtype)
        return False


# use_deterministic_algorithms: Ember's CPU kernels are all deterministic (PyTorch's CPU ones are
# too; its list of nondeterministic ops is CUDA's), so the mode is a flag scripts set and read.
_deterministic = [False, False]   # mode, warn_only


def use_deterministic_algorithms(mode, *, warn_only=False):
    import builtins   # (torch.bool, the dtype, shadows bool here)
    if not isinstance(mode, builtins.bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    _deterministic[:] = [mode, warn_only]


def are_deterministic_algorithms_enabled():
    return _deterministic[0]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic[1]


def set_deterministic_debug_mode(debug_mode):
    modes = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = modes[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    return 0 if not _deterministic[0] else 1 if _deterministic[1] else 2


# set_float32_matmul_precision: TF32 / bfloat16 passes are CUDA's and oneDNN's; Ember's float32
# products are float32 at any setting, as PyTorch's on this CPU
_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision):
    if precision not in ("highest", "high", "medium"):
        return   # ATen logs a warning through glog and keeps the setting
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    return _matmul_precision[0]


def is_autocast_cpu_enabled():
    return _C.is_autocast_cpu_enabled()


def get_autocast_cpu_dtype():
    return _C.get_autocast_cpu_dtype()


from torch._legacy_types import legacy_types as _legacy_types, set_default_tensor_type
globals().update(_legacy_types)

from torch._composites import (outer, ger, atleast_1d, atleast_2d, hstack, vstack, row_stack, nan_to_num,
                               isclose, lerp, logspace, diagonal, diag, trace, baddbmm, repeat_interleave,
                               tensordot, square, addcmul, addcdiv, deg2rad, rad2deg)
from torch._tensor_str import set_printoptions
from torch._composites_extra import (signbit, dist, movedim, moveaxis, diff, nansum, nanmean, median, nanmedian,
                                     aminmax, rot90, kron, cartesian_prod, block_diag, tril_indices, triu_indices,
                                     atleast_3d, column_stack, dstack, addmv, addr, cross, searchsorted, bucketize,
                                     broadcast_shapes, float_power, ldexp, heaviside, vander, cov, corrcoef, renorm,
                                     quantile, nanquantile, cdist, combinations)
from torch._composites_more import (as_tensor, asarray, scalar_tensor, empty_strided, range, concatenate,
                                    broadcast_to, broadcast_tensors, ravel, tile, swapdims, unflatten, fliplr, flipud,
                                    hsplit, vsplit, dsplit, unsafe_chunk, unsafe_split, unsafe_split_with_sizes,
                                    narrow_copy, select_scatter, slice_scatter, diagonal_scatter, clamp_min, clamp_max,
                                    clamp_min_, clamp_max_, clip_, absolute, positive, greater, greater_equal, less,
                                    less_equal, not_equal, is_complex, is_conj, is_neg, is_signed, is_nonzero,
                                    is_same_size, conj, resolve_conj, resolve_neg, conj_physical, real, imag, isposinf,
                                    isneginf, isreal, isin, gcd, lcm, gcd_, lcm_, inner, vdot, chain_matmul, addbmm,
                                    diag_embed, diagflat, msort, mode, trapezoid, trapz, cumulative_trapezoid,
                                    hann_window, hamming_window, blackman_window, bartlett_window, bitwise_left_shift,
                                    bitwise_right_shift)
from torch._composites_extra import matrix_power


def _inplace_function(name):
    """torch.<op>_(input, ...): the Tensor method of that name (PyTorch binds both from one kernel)."""
    def f(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    return f


for _name in ("acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_", "asinh_",
              "atan_", "atanh_", "ceil_", "cos_", "cosh_", "detach_", "erf_", "erfc_", "exp2_", "expm1_", "fix_",
              "floor_", "frac_", "log10_", "log1p_", "log2_", "log_", "logit_", "negative_", "reciprocal_", "round_",
              "rsqrt_", "sin_", "sinc_", "sinh_", "tan_", "trunc_", "xlogy_", "addmv_", "deg2rad_", "rad2deg_",
              "nan_to_num_", "square_", "ldexp_"):
    globals()[_name] = _inplace_function(_name)
del _name
from torch._mathops import (cumprod, cummax, cummin, logcumsumexp, xlogy, polygamma, norm, einsum, cholesky,
                            qr, triangular_solve, inverse, det, slogdet, logdet, std_mean, var_mean, svd, pinverse)   # branch opsmath
import torch.linalg
import torch.fft
from torch._C._nn import (_set_num_threads as set_num_threads, _get_num_threads as get_num_threads,
                          _set_num_interop_threads as set_num_interop_threads,
                          _get_num_interop_threads as get_num_interop_threads)
from torch.random import manual_seed, seed, initial_seed, get_rng_state, set_rng_state, normal
import torch.random
import torch.autograd
import torch.utils
import torch.nn
from torch._composites_fn import (pi, e, inf, nan, has_lapack, has_mkl, has_mkldnn, has_openmp, has_cuda, has_cudnn,
                                  has_mps, conv1d, conv2d, conv_transpose1d, conv_transpose2d, adaptive_avg_pool1d,
                                  adaptive_max_pool1d, pixel_shuffle, pixel_unshuffle, channel_shuffle,
                                  native_channel_shuffle, bilinear, prelu, hardshrink, max_pool1d,
                                  max_pool1d_with_indices, max_pool2d, avg_pool1d, constant_pad_nd, batch_norm,
                                  instance_norm, group_norm, selu, selu_, celu, celu_, threshold, threshold_, rrelu,
                                  rrelu_, dropout_, alpha_dropout, alpha_dropout_, feature_alpha_dropout,
                                  feature_alpha_dropout_, cosine_similarity, pairwise_distance, kl_div,
                                  margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss,
                                  triplet_margin_loss, poisson_nll_loss, binary_cross_entropy_with_logits, fmax,
                                  fmin, is_distributed, is_autocast_enabled, set_autocast_enabled,
                                  get_autocast_gpu_dtype, set_autocast_gpu_dtype, autocast_increment_nesting,
                                  autocast_decrement_nesting, is_autocast_cache_enabled,
                                  set_autocast_cache_enabled, clear_autocast_cache, put)
from torch._composites import get_device, is_inference
from torch._composites_fn import embedding_renorm_
from torch.nn.utils.weight_norm import _weight_norm, norm_except_dim   # ATen ops, by decomposition
import torch.optim
import torch.overrides
import torch.special
import torch.amp
import torch.cpu
import torch.cuda
import torch.backends
import torch.jit
from torch.version import __version__
from torch._ops import ops


# torch.save / torch.load and the storage classes: imported on first use (pickle and zipfile
# would add a tenth of a second to every `import torch`)
_STORAGE_NAMES = ("UntypedStorage", "TypedStorage", "DoubleStorage", "FloatStorage", "HalfStorage", "LongStorage",
                  "IntStorage", "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage", "BFloat16Storage",
                  "_storage_classes", "_tensor_classes")


def is_storage(obj):
    """True if obj is a PyTorch storage object."""
    import torch.storage
    return type(obj) in torch.storage._storage_classes


def __getattr__(name):
    if name in ("save", "load"):
        import torch.serialization
        value = getattr(torch.serialization, name)
        globals()[name] = value
        return value
    if name in _STORAGE_NAMES:
        import torch.storage
        value = getattr(torch.storage, name)
        globals()[name] = value
        return value
    if name in ("serialization", "storage", "_utils", "_tensor", "_weights_only_unpickler"):
        import importlib
        return importlib.import_module("torch." + name)
    # PyTorch's `import torch` imports torch.fx; Ember imports it on first use (PEP 562), which
    # keeps `import torch` as fast as before for the scripts that never touch it
    if name == "fx":
        import torch.fx
        return torch.fx
    if name == "testing":
        import torch.testing
        return torch.testing
    if name == "profiler":
        import torch.profiler
        return torch.profiler
    if name == "distributed":
        import torch.distributed
        return torch.distributed
    if name == "distributions":
        import torch.distributions
        return torch.distributions
    if name == "futures":
        import torch.futures
        return torch.futures
    raise AttributeError(f"module 'torch' has no attribute '{name}'")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """torch.compile: the frame tracer of src/tracer (see torch._dynamo)."""
    import torch._dynamo
    if model is None:
        def decorator(m):
            return torch._dynamo._compile(m, fullgraph, backend, disable)
        return decorator
    return torch._dynamo._compile(model, fullgraph, backend, disable)
