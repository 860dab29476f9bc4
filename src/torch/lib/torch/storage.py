"""torch.storage: the storages under tensors, as PyTorch 1.13 has them.

UntypedStorage is a byte buffer (torch._C.StorageBase, src/torch/storage.c); TypedStorage pairs
one with a dtype, and the legacy classes torch.FloatStorage, torch.LongStorage, ... are
TypedStorage of a fixed dtype.  torch.save pickles a tensor's storage by reference (its legacy
class name and a record key), so these names and their dtypes are the checkpoint format."""
import collections.abc
import copy
import io

import torch
from torch._C import StorageBase

_QUANTIZED = ("quint8", "qint8", "qint32", "quint4x2", "quint2x4")


class _StorageBase:
    is_sparse = False
    is_sparse_csr = False

    def size(self):
        return self.nbytes()

    def __str__(self):
        info_str = f'[{torch.typename(self)}(device={self.device}) of size {len(self)}]'
        data_str = ' ' + '\n '.join(str(self[i]) for i in range(self.size()))
        return data_str + '\n' + info_str

    def __repr__(self):
        return str(self)

    def __iter__(self):
        return iter(map(lambda i: self[i], range(self.size())))

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        memo = memo.setdefault('torch', {})
        if self._cdata in memo:
            return memo[self._cdata]
        new_storage = self.clone()
        memo[self._cdata] = new_storage
        return new_storage

    def __reduce__(self):
        b = io.BytesIO()
        torch.save(self, b, _use_new_zipfile_serialization=False)
        return (_load_from_bytes, (b.getvalue(),))

    def clone(self):
        return type(self)(self.nbytes(), device=self.device).copy_(self)

    def tolist(self):
        return list(self)

    def cpu(self):
        return self

    def untyped(self):
        return self

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return self.__module__ + '.' + self.__class__.__name__
        raise NotImplementedError("UntypedStorage.type(dtype): converting storages between types")

    def get_device(self):
        return -1

    def pin_memory(self):
        raise NotImplementedError("pin_memory: Ember runs on the CPU only")

    # the legacy (non-zip) checkpoint format: the element count as a little-endian int64, then
    # the storage's bytes
    def _write_file(self, f, is_real_file, save_size, element_size):
        if save_size:
            f.write((self.nbytes() // element_size).to_bytes(8, 'little', signed=True))
        f.write(self._to_bytes())

    @classmethod
    def _new_with_file(cls, f, element_size):
        numel = int.from_bytes(_read_exactly(f, 8), 'little', signed=True)
        return cls.from_buffer(_read_exactly(f, numel * element_size))

    def _set_from_file(self, f, offset, is_real_file, element_size):
        if offset is not None:
            f.seek(offset)
        numel = int.from_bytes(_read_exactly(f, 8), 'little', signed=True)
        if numel * element_size != self.nbytes():
            raise RuntimeError(f"storage has wrong byte size: expected {self.nbytes()} got {numel * element_size}")
        self.copy_(StorageBase.from_buffer(_read_exactly(f, numel * element_size)))
        return self


def _read_exactly(f, n):
    b = f.read(n)
    if len(b) != n:
        raise RuntimeError(f"unexpected EOF, expected {n - len(b)} more bytes. The file might be corrupted.")
    return b


class UntypedStorage(StorageBase, _StorageBase):
    @property
    def is_cuda(self):
        return False


def _load_from_bytes(b):
    return torch.load(io.BytesIO(b))


# dtype name -> the legacy storage class name that torch.save writes (PyTorch's
# _dtype_to_storage_type_map; new dtypes get no legacy name)
_DTYPE_TO_STORAGE_NAME = {
    'float64': 'DoubleStorage', 'float32': 'FloatStorage', 'float16': 'HalfStorage', 'int64': 'LongStorage',
    'int32': 'IntStorage', 'int16': 'ShortStorage', 'int8': 'CharStorage', 'uint8': 'ByteStorage',
    'bool': 'BoolStorage', 'bfloat16': 'BFloat16Storage', 'complex128': 'ComplexDoubleStorage',
    'complex64': 'ComplexFloatStorage', 'qint8': 'QInt8Storage', 'qint32': 'QInt32Storage',
    'quint8': 'QUInt8Storage', 'quint4x2': 'QUInt4x2Storage', 'quint2x4': 'QUInt2x4Storage',
}
_STORAGE_NAME_TO_DTYPE = {v: k for k, v in _DTYPE_TO_STORAGE_NAME.items()}


def _dtype_name(dtype):
    return str(dtype).replace('torch.', '')


def _get_dtype_from_pickle_storage_type(pickle_storage_type):
    try:
        name = _STORAGE_NAME_TO_DTYPE[pickle_storage_type]
    except KeyError:
        raise KeyError(f'pickle storage type "{pickle_storage_type}" is not recognized')
    if not hasattr(torch, name):
        raise NotImplementedError(f"{pickle_storage_type}: Ember has no dtype torch.{name}")
    return getattr(torch, name)


def _get_storage_from_sequence(sequence, dtype, device):
    return torch.tensor(sequence, dtype=dtype, device=device).storage().untyped()


class TypedStorage:
    is_sparse = False

    def fill_(self, value):
        self[0:len(self)] = value
        return self

    def __new__(cls, *args, wrap_storage=None, dtype=None, device=None):
        if cls == _LegacyStorage:
            raise RuntimeError("Only child classes of _LegacyStorage can be instantiated")
        if cls == TypedStorage:
            return super().__new__(cls)
        arg_error_msg = (
            f'{cls}.__new__ received an invalid combination '
            f'of arguments. Expected one of:\n'
            ' * no arguments\n'
            ' * (int size)\n'
            ' * (Sequence data)\n'
            ' * (*, UntypedStorage wrap_storage)')
        if device is not None:
            raise RuntimeError(arg_error_msg + "\nKeyword argument 'device' cannot be specified")
        if dtype is not None:
            raise RuntimeError(arg_error_msg + "\nKeyword argument 'dtype' cannot be specified")
        if wrap_storage is None:
            if len(args) > 1:
                raise RuntimeError(arg_error_msg + "\nToo many positional arguments")
            if len(args) == 1 and not isinstance(args[0], int) and not isinstance(args[0], collections.abc.Sequence):
                raise TypeError(arg_error_msg + f"\nArgument type not recognized: {type(args[0])}")
            return TypedStorage(*args, dtype=cls.dtype, device='cpu')
        if len(args) != 0:
            raise RuntimeError(arg_error_msg + "\nNo positional arguments should be given when using 'wrap_storage'")
        if not isinstance(wrap_storage, torch.UntypedStorage):
            raise TypeError(arg_error_msg + f"\nArgument 'wrap_storage' must be UntypedStorage, but got {type(wrap_storage)}")
        return TypedStorage(wrap_storage=wrap_storage, dtype=cls.dtype)

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None):
        arg_error_msg = (
            'TypedStorage.__init__ received an invalid combination '
            'of arguments. Expected one of:\n'
            ' * (*, torch.device device, torch.dtype dtype)\n'
            ' * (int size, *, torch.device device, torch.dtype dtype)\n'
            ' * (Sequence data, *, torch.device device, torch.dtype dtype)\n'
            ' * (*, UntypedStorage wrap_storage, torch.dtype dtype)')
        if wrap_storage is not None:
            if len(args) != 0:
                raise RuntimeError(arg_error_msg + "\nNo positional arguments should be given when using 'wrap_storage'")
            if dtype is None:
                raise RuntimeError(arg_error_msg + "\nArgument 'dtype' must be specified")
            if not isinstance(dtype, torch.dtype):
                raise TypeError(arg_error_msg + f"\nArgument 'dtype' must be torch.dtype, not {type(dtype)}")
            if device is not None:
                raise RuntimeError(arg_error_msg + "\nArgument 'device' should not be specified when 'wrap_storage' is given")
            self.dtype = dtype
            if not isinstance(wrap_storage, torch.UntypedStorage):
                raise TypeError(arg_error_msg + f"\nArgument 'wrap_storage' must be UntypedStorage, but got {type(wrap_storage)}")
            self._storage = wrap_storage
            return
        self.dtype = torch.get_default_dtype() if dtype is None else dtype
        device = torch.device('cpu' if device is None else device)
        if len(args) == 0:
            self._storage = torch.UntypedStorage(device=device)
        elif len(args) == 1:
            if isinstance(args[0], int):
                self._storage = torch.UntypedStorage(int(args[0]) * self.element_size(), device=device)
            elif isinstance(args[0], collections.abc.Sequence):
                self._storage = _get_storage_from_sequence(args[0], self.dtype, device)
            else:
                raise TypeError(arg_error_msg + f"\nArgument type not recognized: {type(args[0])}")
        else:
            raise RuntimeError(arg_error_msg + "\nToo many positional arguments")

    @property
    def is_cuda(self):
        return False

    def untyped(self):
        """Returns the internal :class:`torch.UntypedStorage`"""
        return self._storage

    def _untyped(self):
        return self._storage

    def _new_wrapped_storage(self, untyped_storage):
        if type(self) == TypedStorage:
            return TypedStorage(wrap_storage=untyped_storage, dtype=self.dtype)
        return type(self)(wrap_storage=untyped_storage)

    def __len__(self):
        return self._storage.nbytes() // self.element_size()

    def _maybe_wrap_index(self, idx, is_stop=False):
        if idx is None:
            return self.size() if is_stop else 0
        if type(idx) != int:
            raise TypeError(f"can't index a {type(self)} with {type(idx)}")
        if is_stop:
            if (idx > self.size()) or (idx < -self.size()):
                raise IndexError(f'index {idx} out of range for storage of size {self.size()}')
            return idx if idx > 0 else idx % self.size()
        if (idx >= self.size()) or (idx < -self.size()):
            raise IndexError(f'index {idx} out of range for storage of size {self.size()}')
        return idx % self.size()

    def _as_tensor(self):
        return torch.tensor([], dtype=self.dtype).set_(self)

    def __setitem__(self, idx, value):
        if not isinstance(idx, (int, slice)):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        if torch.is_storage(value):
            raise RuntimeError(f'cannot set item with value type {type(value)}')
        self._as_tensor()[idx] = value

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError('slices are only supported in UntypedStorage.__getitem__')
        elif not isinstance(idx, int):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        return self._as_tensor()[self._maybe_wrap_index(idx)].item()

    def copy_(self, source, non_blocking=None):
        self._storage.copy_(source.untyped(), non_blocking)
        return self

    def nbytes(self):
        return self._storage.nbytes()

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            legacy_class = self._get_legacy_storage_class()
            if legacy_class is not None:
                return legacy_class.__module__ + '.' + legacy_class.__name__
            return '.'.join([self.__module__, type(self).__name__])
        return self._storage.type(dtype, non_blocking)

    def cuda(self, device=None, non_blocking=False, **kwargs):
        raise RuntimeError("Ember runs on the CPU only: storage.cuda() is not available")

    def element_size(self):
        return torch._utils._element_size(self.dtype)

    def get_device(self):
        return self._storage.get_device()

    def __str__(self):
        info_str = (f'[{torch.typename(self)}(dtype={self.dtype}, '
                    f'device={self.device}) of size {len(self)}]')
        data_str = ' ' + '\n '.join(str(self[i]) for i in range(self.size()))
        return data_str + '\n' + info_str

    def __repr__(self):
        return str(self)

    def __iter__(self):
        return iter(map(lambda i: self[i], range(self.size())))

    def __copy__(self):
        return self._new_wrapped_storage(copy.copy(self._storage))

    def __deepcopy__(self, memo):
        return self._new_wrapped_storage(copy.deepcopy(self._storage, memo))

    def clone(self):
        return self._new_wrapped_storage(self._storage.clone())

    def tolist(self):
        return list(self)

    def cpu(self):
        return self._new_wrapped_storage(self._storage.cpu())

    def share_memory_(self):
        self._storage.share_memory_()
        return self

    @property
    def _cdata(self):
        return self._storage._cdata

    @property
    def device(self):
        return self._storage.device

    def size(self):
        return len(self)

    def pickle_storage_type(self):
        try:
            return _DTYPE_TO_STORAGE_NAME[_dtype_name(self.dtype)]
        except KeyError:
            raise KeyError(f'dtype {self.dtype} is not recognized')

    def __reduce__(self):
        b = io.BytesIO()
        torch.save(self, b, _use_new_zipfile_serialization=False)
        return (_load_from_bytes, (b.getvalue(),))

    def data_ptr(self):
        return self._storage.data_ptr()

    def resize_(self, size):
        self._storage.resize_(size * self.element_size())

    def is_pinned(self):
        return False

    def is_shared(self):
        return self._storage.is_shared()

    @classmethod
    def from_buffer(cls, *args, dtype=None, device=None, **kwargs):
        if cls == TypedStorage:
            dtype = torch.get_default_dtype() if dtype is None else dtype
            device = torch.device('cpu' if device is None else device)
            if device.type != 'cpu':
                raise RuntimeError(f'TypedStorage.from_buffer: Not available for device {device.type}')
        else:
            if dtype is not None or len(args) == 5:
                raise RuntimeError("from_buffer: 'dtype' can only be specified in "
                                   "UntypedStorage.from_buffer and TypedStorage.from_buffer")
            if device is not None:
                raise RuntimeError("from_buffer: 'device' can only be specified in "
                                   "UntypedStorage.from_buffer and TypedStorage.from_buffer")
            dtype = cls.dtype
        untyped_storage = torch.UntypedStorage.from_buffer(*args, dtype=dtype, **kwargs)
        return TypedStorage(wrap_storage=untyped_storage, dtype=dtype)

    def _to(self, dtype):
        if not isinstance(dtype, torch.dtype):
            raise TypeError(f"Argument 'dtype' must be torch.dtype, not {type(dtype)}")
        storage = self._as_tensor().to(dtype).storage()
        if storage.data_ptr() == self.data_ptr():
            storage = storage.clone()
        return storage

    def double(self):
        return self._to(torch.double)

    def float(self):
        return self._to(torch.float)

    def half(self):
        return self._to(torch.half)

    def long(self):
        return self._to(torch.long)

    def int(self):
        return self._to(torch.int)

    def short(self):
        return self._to(torch.short)

    def char(self):
        return self._to(torch.int8)

    def byte(self):
        return self._to(torch.uint8)

    def bool(self):
        return self._to(torch.bool)

    def bfloat16(self):
        return self._to(torch.bfloat16)

    def _get_legacy_storage_class(self):
        name = _DTYPE_TO_STORAGE_NAME.get(_dtype_name(self.dtype))
        return None if name is None else getattr(torch, name, None)


class _LegacyStorageMeta(type):
    def __instancecheck__(cls, instance):
        if type(instance) == TypedStorage:
            return cls.dtype == instance.dtype
        return False


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    pass


class _ClassPropertyDescriptor:
    def __init__(self, fget):
        self.fget = fget

    def __get__(self, instance, owner=None):
        if owner is None:
            owner = type(instance)
        return self.fget(owner)


def _legacy_storage_class(name, dtype_name):
    # class FloatStorage(_LegacyStorage) with the class property dtype = torch.float32, in
    # module torch (the name torch.save pickles)
    cls = _LegacyStorageMeta(name, (_LegacyStorage,),
                             {'__module__': 'torch', '__qualname__': name,
                              'dtype': _ClassPropertyDescriptor(lambda c: getattr(torch, dtype_name))})
    return cls


DoubleStorage = _legacy_storage_class('DoubleStorage', 'float64')
FloatStorage = _legacy_storage_class('FloatStorage', 'float32')
HalfStorage = _legacy_storage_class('HalfStorage', 'float16')
LongStorage = _legacy_storage_class('LongStorage', 'int64')
IntStorage = _legacy_storage_class('IntStorage', 'int32')
ShortStorage = _legacy_storage_class('ShortStorage', 'int16')
CharStorage = _legacy_storage_class('CharStorage', 'int8')
ByteStorage = _legacy_storage_class('ByteStorage', 'uint8')
BoolStorage = _legacy_storage_class('BoolStorage', 'bool')
BFloat16Storage = _legacy_storage_class('BFloat16Storage', 'bfloat16')

_LEGACY_CLASSES = (DoubleStorage, FloatStorage, HalfStorage, LongStorage, IntStorage, ShortStorage,
                   CharStorage, ByteStorage, BoolStorage, BFloat16Storage)

# torch._storage_classes / torch._tensor_classes: what torch.is_storage accepts and what the
# weights-only unpickler allows by name
_storage_classes = {UntypedStorage, TypedStorage, *_LEGACY_CLASSES}
_tensor_classes = {torch.Tensor}
