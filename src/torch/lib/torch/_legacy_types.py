"""The legacy tensor types (torch.FloatTensor, torch.LongTensor, ...): constructors of a fixed
dtype (a data sequence, sizes, a torch.Size, or nothing), isinstance checks that compare the
tensor's dtype (isinstance(t, torch.LongTensor) is t.dtype == torch.int64, as under PyTorch),
Tensor.type(<type or its name>) and torch.set_default_tensor_type."""
import torch

_TYPES = (("FloatTensor", torch.float32), ("DoubleTensor", torch.float64), ("HalfTensor", torch.float16),
          ("BFloat16Tensor", torch.bfloat16), ("ByteTensor", torch.uint8), ("CharTensor", torch.int8),
          ("ShortTensor", torch.int16), ("IntTensor", torch.int32), ("LongTensor", torch.int64),
          ("BoolTensor", torch.bool))
_SCALAR = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16",
           torch.uint8: "Byte", torch.int8: "Char", torch.int16: "Short", torch.int32: "Int", torch.int64: "Long",
           torch.bool: "Bool"}


# c10's names of the C++ types, which the legacy constructor's TensorOptions message prints
_CPP = {torch.float32: "float", torch.float64: "double", torch.float16: "c10::Half", torch.bfloat16: "c10::BFloat16",
        torch.uint8: "unsigned char", torch.int8: "signed char", torch.int16: "short int", torch.int32: "int",
        torch.int64: "long int", torch.bool: "bool"}


def _options(dtype):
    return (f"TensorOptions(dtype={_CPP[dtype]}, device=cpu, layout=Strided, requires_grad=false (default), "
            f"pinned_memory=false (default), memory_format=(nullopt))")


class _LegacyTensorMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, torch.Tensor) and obj.dtype == cls.dtype

    def __call__(cls, *args, device=None):
        if device is not None and str(device) != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {device} was passed")
        if not args:
            return torch.empty(0, dtype=cls.dtype)
        if len(args) == 1:
            a = args[0]
            if isinstance(a, torch.Tensor):
                if a.dtype != cls.dtype:
                    raise TypeError(f"expected {_options(cls.dtype)} (got {_options(a.dtype)})")
                return a
            if isinstance(a, torch.Size):
                return torch.empty(a, dtype=cls.dtype)
            if isinstance(a, (list, tuple)):
                return torch.tensor(a, dtype=cls.dtype)
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return torch.empty(*args, dtype=cls.dtype)
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _make(name, dtype):
    t = _LegacyTensorMeta(name, (), {"dtype": dtype, "is_cuda": False, "is_sparse": False})
    t.__module__ = "torch"
    return t


legacy_types = {name: _make(name, dtype) for name, dtype in _TYPES}


def type_dtype(t):
    """The dtype a legacy type or its name ('torch.DoubleTensor') stands for (Tensor.type(t))."""
    if isinstance(t, _LegacyTensorMeta):
        return t.dtype
    if isinstance(t, str):
        name = t[len("torch."):] if t.startswith("torch.") else None
        for n, dtype in _TYPES:
            if name == n:
                return dtype
        if t.startswith("torch.cuda."):
            raise RuntimeError("Cannot cast tensor to a CUDA type: Ember's torch is a CPU-only build")
        raise ValueError(f"invalid type: '{t}'")
    raise TypeError(f"dtype must be a type, str, or dtype object")


def set_default_tensor_type(t):
    dtype = type_dtype(t)
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    torch.set_default_dtype(dtype)
