"""torch.serialization: torch.save and torch.load in PyTorch 1.13's checkpoint formats.

The zip format (what torch.save writes): a zip archive, every record stored uncompressed under
one folder named after the file ("<name>/", "archive/" for a buffer), each record's data
aligned to 64 bytes by an "FB" extra field as PyTorch's writer pads it:
    <name>/data.pkl   the object, pickled with protocol 2; each storage is a persistent id
                      ('storage', <legacy storage class>, key, location, numel)
    <name>/data/<key> the storage's bytes, little-endian, one record per storage (tensors that
                      share a storage pickle the same key, so loading shares it again)
    <name>/version    "3\\n"
Tensors pickle as torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, hooks); parameters as _rebuild_parameter(data, requires_grad, hooks).
The legacy format (_use_new_zipfile_serialization=False): pickled magic number, protocol
version and system info, the pickled object, the sorted storage keys, then each storage as
an int64 element count and its bytes.

The pickling is CPython's own pickle module and the container CPython's zipfile module, as
PyTorch does with its C++ zip writer; weights_only=True unpickles with
torch._weights_only_unpickler, which refuses every global outside a short list."""
import difflib
import io
import os
import pathlib
import pickle
import struct
import sys
import warnings
import zipfile

import torch
from torch._utils import _import_dotted_name
from torch.storage import _get_dtype_from_pickle_storage_type
import torch._weights_only_unpickler as _weights_only_unpickler

DEFAULT_PROTOCOL = 2

LONG_SIZE = struct.Struct('=l').size
INT_SIZE = struct.Struct('=i').size
SHORT_SIZE = struct.Struct('=h').size

MAGIC_NUMBER = 0x1950a86a20f9469cfc6c
PROTOCOL_VERSION = 1001
STORAGE_KEY_SEPARATOR = ','

# the zip format's version record (caffe2's kProducedFileFormatVersion in 1.13) and the range
# its reader accepts
_FILE_FORMAT_VERSION = 3
_MIN_READ_VERSION = 1
_MAX_READ_VERSION = 10
_FIELD_ALIGNMENT = 64

__all__ = [
    'SourceChangeWarning', 'mkdtemp', 'register_package', 'check_module_version_greater_or_equal',
    'validate_cuda_device', 'location_tag', 'default_restore_location', 'normalize_storage_type',
    'storage_to_tensor_type', 'save', 'load', 'StorageType',
]


class SourceChangeWarning(Warning):
    pass


def mkdtemp():
    import contextlib
    import shutil
    import tempfile

    @contextlib.contextmanager
    def _mkdtemp():
        path = tempfile.mkdtemp()
        yield path
        shutil.rmtree(path)
    return _mkdtemp()


_package_registry = []


def _is_zipfile(f):
    # stricter than zipfile.is_zipfile: a checkpoint starts with a local file header
    start = f.tell()
    head = b''
    while len(head) < 4:
        b = f.read(1)
        if b == b'':
            break
        head += b
    f.seek(start)
    return head == b'PK\x03\x04'


def register_package(priority, tagger, deserializer):
    _package_registry.append((priority, tagger, deserializer))
    _package_registry.sort()


def check_module_version_greater_or_equal(module, req_version_tuple, error_if_malformed=True):
    version_strs = module.__version__.split('.')
    module_version = tuple(type(req_field)(version_strs[idx]) for idx, req_field in enumerate(req_version_tuple))
    return module_version >= req_version_tuple


def _cpu_tag(obj):
    if obj.device.type == 'cpu':
        return 'cpu'


def _cuda_tag(obj):
    if obj.device.type == 'cuda':
        return 'cuda:' + str(obj.device.index)


def _mps_tag(obj):
    if obj.device.type == 'mps':
        return 'mps'


def _meta_tag(obj):
    if obj.device.type == 'meta':
        return 'meta'


def _cpu_deserialize(obj, location):
    if location == 'cpu':
        return obj


def _cuda_device_index(location):
    # torch.cuda._utils._get_device_index for a location string: 'cuda' or 'cuda:N'
    if location == 'cuda':
        return 0
    if location.startswith('cuda:') and location[5:].isdigit():
        return int(location[5:])
    raise RuntimeError(f"Invalid device string: '{location}'")


def validate_cuda_device(location):
    device = _cuda_device_index(location)
    if not torch.cuda.is_available():
        raise RuntimeError('Attempting to deserialize object on a CUDA '
                           'device but torch.cuda.is_available() is False. '
                           'If you are running on a CPU-only machine, '
                           'please use torch.load with map_location=torch.device(\'cpu\') '
                           'to map your storages to the CPU.')
    device_count = torch.cuda.device_count()
    if device >= device_count:
        raise RuntimeError('Attempting to deserialize object on CUDA device '
                           f'{device} but torch.cuda.device_count() is {device_count}. Please use '
                           'torch.load with map_location to map your storages '
                           'to an existing device.')
    return device


def _cuda_deserialize(obj, location):
    if location.startswith('cuda'):
        validate_cuda_device(location)
        raise RuntimeError("Ember runs on the CPU only: cannot move a storage to " + location)


def _mps_deserialize(obj, location):
    if location == 'mps':
        raise RuntimeError("Ember runs on the CPU only: cannot move a storage to mps")


def _meta_deserialize(obj, location):
    if location == 'meta':
        raise NotImplementedError("loading storages onto the meta device: Ember has no meta device")


register_package(10, _cpu_tag, _cpu_deserialize)
register_package(20, _cuda_tag, _cuda_deserialize)
register_package(21, _mps_tag, _mps_deserialize)
register_package(22, _meta_tag, _meta_deserialize)


def location_tag(storage):
    for _, tagger, _ in _package_registry:
        location = tagger(storage)
        if location:
            return location
    raise RuntimeError("don't know how to determine data location of " + torch.typename(storage))


def default_restore_location(storage, location):
    for _, _, fn in _package_registry:
        result = fn(storage, location)
        if result is not None:
            return result
    raise RuntimeError("don't know how to restore data location of "
                       + torch.typename(storage) + " (tagged with " + location + ")")


def normalize_storage_type(storage_type):
    return getattr(torch, storage_type.__name__)


def storage_to_tensor_type(storage):
    storage_type = type(storage)
    module = _import_dotted_name(storage_type.__module__)
    return getattr(module, storage_type.__name__.replace('Storage', 'Tensor'))


def _is_path(name_or_buffer):
    return isinstance(name_or_buffer, str) or isinstance(name_or_buffer, pathlib.Path)


class _opener:
    def __init__(self, file_like):
        self.file_like = file_like

    def __enter__(self):
        return self.file_like

    def __exit__(self, *args):
        pass


class _open_file(_opener):
    def __init__(self, name, mode):
        super().__init__(open(name, mode))

    def __exit__(self, *args):
        self.file_like.close()


class _open_buffer_reader(_opener):
    def __init__(self, buffer):
        super().__init__(buffer)
        _check_seekable(buffer)


class _open_buffer_writer(_opener):
    def __exit__(self, *args):
        self.file_like.flush()


def _open_file_like(name_or_buffer, mode):
    if _is_path(name_or_buffer):
        return _open_file(name_or_buffer, mode)
    if 'w' in mode:
        return _open_buffer_writer(name_or_buffer)
    elif 'r' in mode:
        return _open_buffer_reader(name_or_buffer)
    raise RuntimeError(f"Expected 'r' or 'w' in mode but got {mode}")


def _archive_basename(name):
    # the folder PyTorch's writer names after a file: its base name without the extension
    start = max(name.rfind('/'), name.rfind('\\')) + 1
    base = name[start:]
    dot = base.rfind('.')
    return base[:dot] if dot >= 0 else base


class _PyTorchFileWriter:
    """The zip container torch.save writes (torch._C.PyTorchFileWriter's job in PyTorch)."""

    def __init__(self, name_or_buffer):
        if isinstance(name_or_buffer, str):
            # PyTorchStreamWriter's checks and messages
            cut = max(name_or_buffer.rfind('/'), name_or_buffer.rfind('\\'))
            parent = name_or_buffer[:cut] if cut > 0 else ''
            if parent and not os.path.isdir(parent):
                raise RuntimeError(f"Parent directory {parent} does not exist.")
            try:
                self._file = open(name_or_buffer, 'wb')
            except OSError:
                raise RuntimeError(f"File {name_or_buffer} cannot be opened.") from None
            self._owns_file = True
            self._archive = _archive_basename(name_or_buffer)
        else:
            self._file = name_or_buffer
            self._owns_file = False
            self._archive = 'archive'
        self._start = self._file.tell() if hasattr(self._file, 'tell') else 0
        self._zip = zipfile.ZipFile(self._file, 'w', compression=zipfile.ZIP_STORED, allowZip64=True)
        self._written = set()
        self._closed = False

    def write_record(self, name, data, nbytes=None):
        if name in self._written:
            raise RuntimeError(f"PytorchStreamWriter failed writing file {self._archive}/{name}: file already exists")
        self._written.add(name)
        full = self._archive + '/' + name
        zinfo = zipfile.ZipInfo(full, date_time=(1980, 0, 0, 0, 0, 0))
        zinfo.compress_type = zipfile.ZIP_STORED
        zinfo.create_system = 0
        # the record's data starts 64-byte aligned: the local header (30 bytes, the name, this
        # extra field, and the zip64 sizes zipfile adds for big records) is padded with "Z"s
        zip64 = len(data) * 1.05 > zipfile.ZIP64_LIMIT
        cursor = self._file.tell() - self._start if self._zip._seekable else self._zip.start_dir
        header_end = cursor + 30 + len(full.encode('utf-8')) + 4 + (20 if zip64 else 0)
        pad = -header_end % _FIELD_ALIGNMENT
        zinfo.extra = b'FB' + struct.pack('<H', pad) + b'Z' * pad
        self._zip.writestr(zinfo, data)

    def write_end_of_file(self):
        if self._closed:
            return
        self.write_record('version', f'{_FILE_FORMAT_VERSION}\n'.encode())
        self._closed = True
        self._zip.close()
        if self._owns_file:
            self._file.close()

    def get_all_written_records(self):
        return set(self._written)


class _PyTorchFileReader:
    """Reads the zip container (torch._C.PyTorchFileReader's job): records live under the
    folder of the archive's first entry; a version record outside 1..10 is refused."""

    def __init__(self, name_or_buffer):
        self._file = name_or_buffer
        try:
            self._zip = zipfile.ZipFile(name_or_buffer, 'r')
        except zipfile.BadZipFile:
            # miniz's reasons: shorter than an end-of-central-directory record, or none found
            start = name_or_buffer.tell()
            size = name_or_buffer.seek(0, 2)
            name_or_buffer.seek(start)
            why = "not a ZIP archive" if size < 22 else "failed finding central directory"
            raise RuntimeError("PytorchStreamReader failed reading zip archive: " + why) from None
        names = self._zip.namelist()
        if not names:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: archive does not contain any files")
        first = names[0]
        if '/' not in first:
            raise RuntimeError(f"file in archive is not in a subdirectory: {first}")
        self._prefix = first[:first.index('/') + 1]
        self._names = set(names)
        vname = '.data/version' if self.has_record('.data/version') else 'version'
        version = int(self.get_record(vname).decode('ascii').strip() or '0')
        if version < _MIN_READ_VERSION:
            raise RuntimeError(f"Attempted to read a PyTorch file with version {version}, but the minimum supported "
                               f"version for reading is {_MIN_READ_VERSION}. Your PyTorch script module file is too "
                               "old. Please regenerate it with latest version of PyTorch to mitigate this issue.")
        if version > _MAX_READ_VERSION:
            raise RuntimeError(f"Attempted to read a PyTorch file with version {version}, but the maximum supported "
                               f"version for reading is {_MAX_READ_VERSION}. The version of your PyTorch installation "
                               "may be too old, please upgrade PyTorch to latest version to mitigate this issue.")

    def has_record(self, name):
        return self._prefix + name in self._names

    def get_record(self, name):
        if not self.has_record(name):
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found")
        info = self._zip.getinfo(self._prefix + name)
        try:
            if info.compress_type == zipfile.ZIP_STORED and hasattr(self._file, 'seek'):
                return self._read_stored(info)
            return self._zip.read(info)
        except zipfile.BadZipFile as e:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: {e}") from None

    def _read_stored(self, info):
        # a stored record's bytes straight from the file (one copy, where zipfile's reader makes
        # several); no CRC check: PyTorch builds miniz with MINIZ_DISABLE_ZIP_READER_CRC32_CHECKS
        f = self._file
        self._seek_data(info)
        data = f.read(info.file_size)
        if len(data) != info.file_size:
            raise zipfile.BadZipFile("Truncated file")
        return data

    def get_storage_from_record(self, name, nbytes):
        info = self._zip.getinfo(self._prefix + name) if self.has_record(name) else None
        if info is not None and info.compress_type == zipfile.ZIP_STORED and hasattr(self._file, 'seek'):
            # the record's bytes read straight into the storage (no bytes object of its size)
            if info.file_size != nbytes:
                raise RuntimeError(f"PytorchStreamReader: record {name} holds {info.file_size} bytes, expected {nbytes}")
            self._seek_data(info)
            return torch.UntypedStorage._from_file(self._file, nbytes)
        data = self.get_record(name)
        if len(data) != nbytes:
            raise RuntimeError(f"PytorchStreamReader: record {name} holds {len(data)} bytes, expected {nbytes}")
        return torch.UntypedStorage.from_buffer(data)

    def _seek_data(self, info):
        f = self._file
        f.seek(info.header_offset)
        header = f.read(30)
        if len(header) != 30 or header[:4] != b'PK\x03\x04':
            raise RuntimeError(f"PytorchStreamReader failed reading file {info.filename}: Bad magic number for file header")
        skip = int.from_bytes(header[26:28], 'little') + int.from_bytes(header[28:30], 'little')
        f.seek(info.header_offset + 30 + skip)

    def get_all_records(self):
        return [n[len(self._prefix):] for n in self._zip.namelist() if n.startswith(self._prefix)]


class _open_zipfile_reader(_opener):
    def __init__(self, name_or_buffer):
        super().__init__(_PyTorchFileReader(name_or_buffer))


class _open_zipfile_writer_file(_opener):
    def __init__(self, name):
        super().__init__(_PyTorchFileWriter(str(name)))

    def __exit__(self, *args):
        self.file_like.write_end_of_file()


class _open_zipfile_writer_buffer(_opener):
    def __init__(self, buffer):
        self.buffer = buffer
        super().__init__(_PyTorchFileWriter(buffer))

    def __exit__(self, *args):
        self.file_like.write_end_of_file()
        self.buffer.flush()


def _open_zipfile_writer(name_or_buffer):
    if _is_path(name_or_buffer):
        return _open_zipfile_writer_file(name_or_buffer)
    return _open_zipfile_writer_buffer(name_or_buffer)


def _is_compressed_file(f):
    try:
        return f.__module__ in ['gzip']
    except AttributeError:
        return False


def _should_read_directly(f):
    if _is_compressed_file(f):
        return False
    try:
        return f.fileno() >= 0
    except io.UnsupportedOperation:
        return False
    except AttributeError:
        return False


def _check_seekable(f):
    def raise_err_msg(patterns, e):
        for p in patterns:
            if p in str(e):
                msg = (str(e) + ". You can only torch.load from a file that is seekable."
                       + " Please pre-load the data into a buffer like io.BytesIO and"
                       + " try to load from it instead.")
                raise type(e)(msg)
        raise e

    try:
        f.seek(f.tell())
        return True
    except (io.UnsupportedOperation, AttributeError) as e:
        raise_err_msg(["seek", "tell"], e)
    return False


def _check_dill_version(pickle_module):
    if pickle_module is not None and pickle_module.__name__ == 'dill':
        if not check_module_version_greater_or_equal(pickle_module, (0, 3, 1), False):
            raise ValueError("'torch' supports dill >= 0.3.1, but you have dill %s. Please upgrade dill or switch "
                             "to 'pickle'" % pickle_module.__version__)


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True):
    """save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True)

    Saves an object to a disk file (a path, or a file-like object with write and flush) in
    PyTorch's checkpoint format."""
    _check_dill_version(pickle_module)
    if _use_new_zipfile_serialization:
        with _open_zipfile_writer(f) as opened_zipfile:
            _save(obj, opened_zipfile, pickle_module, pickle_protocol)
            return
    else:
        with _open_file_like(f, 'wb') as opened_file:
            _legacy_save(obj, opened_file, pickle_module, pickle_protocol)


def _storage_of(obj):
    """(untyped storage, dtype, legacy storage class, numel) of a storage torch.save meets."""
    if isinstance(obj, torch.storage.TypedStorage):
        return obj._storage, obj.dtype, getattr(torch, obj.pickle_storage_type()), obj.size()
    if isinstance(obj, torch.UntypedStorage):
        return obj, torch.uint8, normalize_storage_type(type(obj)), obj.nbytes()
    raise TypeError(f'type not recognized: {type(obj)}')


def _check_one_dtype(storage_dtypes, storage, dtype):
    # storages sharing memory are saved once: they must agree on their dtype
    if storage.data_ptr() != 0:
        seen = storage_dtypes.setdefault(storage.data_ptr(), dtype)
        if seen != dtype:
            raise RuntimeError('Cannot save multiple tensors or storages that view the same data as different types')


def _legacy_save(obj, f, pickle_module, pickle_protocol):
    import torch.nn as nn
    serialized_container_types = {}
    serialized_storages = {}
    storage_dtypes = {}

    def persistent_id(obj):
        if isinstance(obj, type) and issubclass(obj, nn.Module):
            if obj in serialized_container_types:
                return None
            serialized_container_types[obj] = True
            source_file = source = None
            try:
                import inspect
                source_lines, _ = inspect.getsourcelines(obj)
                source_file = inspect.getsourcefile(obj)
                source = ''.join(source_lines)
            except Exception:
                warnings.warn("Couldn't retrieve source code for container of "
                              "type " + obj.__name__ + ". It won't be checked "
                              "for correctness upon loading.")
            return ('module', obj, source_file, source)
        if isinstance(obj, torch.storage.TypedStorage) or torch.is_storage(obj):
            storage, dtype, storage_type, storage_numel = _storage_of(obj)
            _check_one_dtype(storage_dtypes, storage, dtype)
            storage_key = str(storage._cdata)
            location = location_tag(storage)
            if storage_key not in serialized_storages:
                serialized_storages[storage_key] = (storage, dtype)
            return ('storage', storage_type, storage_key, location, storage_numel, None)
        return None

    sys_info = dict(protocol_version=PROTOCOL_VERSION, little_endian=sys.byteorder == 'little',
                    type_sizes=dict(short=SHORT_SIZE, int=INT_SIZE, long=LONG_SIZE))
    pickle_module.dump(MAGIC_NUMBER, f, protocol=pickle_protocol)
    pickle_module.dump(PROTOCOL_VERSION, f, protocol=pickle_protocol)
    pickle_module.dump(sys_info, f, protocol=pickle_protocol)
    pickler = pickle_module.Pickler(f, protocol=pickle_protocol)
    pickler.persistent_id = persistent_id
    pickler.dump(obj)
    serialized_storage_keys = sorted(serialized_storages.keys())
    pickle_module.dump(serialized_storage_keys, f, protocol=pickle_protocol)
    f.flush()
    for key in serialized_storage_keys:
        storage, dtype = serialized_storages[key]
        storage._write_file(f, _should_read_directly(f), True, torch._utils._element_size(dtype))


def _save(obj, zip_file, pickle_module, pickle_protocol):
    serialized_storages = {}
    id_map = {}
    storage_dtypes = {}

    def persistent_id(obj):
        if isinstance(obj, torch.storage.TypedStorage) or torch.is_storage(obj):
            storage, dtype, storage_type, storage_numel = _storage_of(obj)
            _check_one_dtype(storage_dtypes, storage, dtype)
            # one record per C storage, keyed in the order storages are met
            storage_key = id_map.setdefault(storage._cdata, str(len(id_map)))
            location = location_tag(storage)
            serialized_storages[storage_key] = storage
            return ('storage', storage_type, storage_key, location, storage_numel)
        return None

    data_buf = io.BytesIO()
    pickler = pickle_module.Pickler(data_buf, protocol=pickle_protocol)
    pickler.persistent_id = persistent_id
    pickler.dump(obj)
    data_value = data_buf.getvalue()
    zip_file.write_record('data.pkl', data_value, len(data_value))
    for key in sorted(serialized_storages.keys()):
        storage = serialized_storages[key]
        zip_file.write_record(f'data/{key}', storage._to_bytes(), storage.nbytes())


def load(f, map_location=None, pickle_module=None, *, weights_only=False, **pickle_load_args):
    """load(f, map_location=None, pickle_module=pickle, *, weights_only=False, **pickle_load_args)

    Loads an object saved with torch.save (either format) from a path or a seekable file-like
    object.  map_location: None, a device or device string, a dict mapping saved locations to
    new ones, or a callable (storage, location) -> storage or None.  weights_only=True unpickles
    only tensors, primitive types and dictionaries."""
    UNSAFE_MESSAGE = (
        "Weights only load failed. Re-running `torch.load` with `weights_only` set to `False`"
        " will likely succeed, but it can result in arbitrary code execution."
        "Do it only if you get the file from a trusted source. WeightsUnpickler error: "
    )
    if os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in ['1', 'y', 'yes', 'true']:
        weights_only = True
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when expiclit picke_module is specified")
    else:
        pickle_module = pickle
    _check_dill_version(pickle_module)
    if 'encoding' not in pickle_load_args.keys():
        pickle_load_args['encoding'] = 'utf-8'

    with _open_file_like(f, 'rb') as opened_file:
        if _is_zipfile(opened_file):
            with _open_zipfile_reader(opened_file) as opened_zipfile:
                if _is_torchscript_zip(opened_zipfile):
                    raise NotImplementedError("torch.load of a TorchScript archive (torch.jit.load)")
                if weights_only:
                    try:
                        return _load(opened_zipfile, map_location, _weights_only_unpickler, **pickle_load_args)
                    except RuntimeError as e:
                        raise pickle.UnpicklingError(UNSAFE_MESSAGE + str(e)) from None
                return _load(opened_zipfile, map_location, pickle_module, **pickle_load_args)
        if weights_only:
            try:
                return _legacy_load(opened_file, map_location, _weights_only_unpickler, **pickle_load_args)
            except RuntimeError as e:
                raise pickle.UnpicklingError(UNSAFE_MESSAGE + str(e)) from None
        return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)


def _get_layout(name):
    """Get layout extension object from its string representation."""
    if name == 'torch.strided':
        return torch.strided
    raise NotImplementedError(f"layout {name}: Ember's tensors are strided")


def _check_container_source(container_type, source_file, original_source):
    try:
        import inspect
        current_source = ''.join(inspect.getsourcelines(container_type)[0])
    except Exception:
        warnings.warn("Couldn't retrieve source code for container of "
                      "type " + container_type.__name__ + ". It won't be checked "
                      "for correctness upon loading.")
        return
    if original_source != current_source:
        if container_type.dump_patches:
            file_name = container_type.__name__ + '.patch'
            diff = difflib.unified_diff(current_source.split('\n'), original_source.split('\n'),
                                        source_file, source_file, lineterm="")
            lines = '\n'.join(diff)
            try:
                with open(file_name, 'a+') as f:
                    file_size = f.seek(0, 2)
                    f.seek(0)
                    if file_size == 0:
                        f.write(lines)
                    elif file_size != len(lines) or f.read() != lines:
                        raise IOError
                msg = ("Saved a reverse patch to " + file_name + ". "
                       "Run `patch -p0 < " + file_name + "` to revert your changes.")
            except IOError:
                msg = ("Tried to save a patch, but couldn't create a "
                       "writable file " + file_name + ". Make sure it "
                       "doesn't exist and your working directory is writable.")
        else:
            msg = ("you can retrieve the original source code by "
                   "accessing the object's source attribute or set "
                   "`torch.nn.Module.dump_patches = True` and use the "
                   "patch tool to revert the changes.")
        msg = f"source code of class '{torch.typename(container_type)}' has changed. {msg}"
        warnings.warn(msg, SourceChangeWarning)


def _legacy_load(f, map_location, pickle_module, **pickle_load_args):
    deserialized_objects = {}
    restore_location = _get_restore_location(map_location)

    class UnpicklerWrapper(pickle_module.Unpickler):
        def find_class(self, mod_name, name):
            if type(name) is str and 'Storage' in name:
                try:
                    return StorageType(name)
                except KeyError:
                    pass
            return super().find_class(mod_name, name)

    def persistent_load(saved_id):
        assert isinstance(saved_id, tuple)
        typename = _maybe_decode_ascii(saved_id[0])
        data = saved_id[1:]
        if typename == 'module':
            if all(data[1:]):
                _check_container_source(*data)
            return data[0]
        elif typename == 'storage':
            storage_type, root_key, location, numel, view_metadata = data
            location = _maybe_decode_ascii(location)
            dtype = storage_type.dtype
            nbytes = numel * torch._utils._element_size(dtype)
            if root_key not in deserialized_objects:
                obj = torch.UntypedStorage(nbytes)
                deserialized_objects[root_key] = torch.storage.TypedStorage(
                    wrap_storage=restore_location(obj, location), dtype=dtype)
            typed_storage = deserialized_objects[root_key]
            if view_metadata is not None:
                view_key, offset, view_size = view_metadata
                offset_bytes = offset * torch._utils._element_size(dtype)
                view_size_bytes = view_size * torch._utils._element_size(dtype)
                if view_key not in deserialized_objects:
                    deserialized_objects[view_key] = torch.storage.TypedStorage(
                        wrap_storage=typed_storage._storage[offset_bytes:offset_bytes + view_size_bytes], dtype=dtype)
                return deserialized_objects[view_key]
            return typed_storage
        raise RuntimeError("Unknown saved id type: %s" % saved_id[0])

    _check_seekable(f)
    f_should_read_directly = _should_read_directly(f)
    if f_should_read_directly and f.tell() == 0 and _is_tarfile(f):
        raise NotImplementedError("torch.load of the pre-0.4 tar checkpoint format")

    try:
        magic_number = pickle_module.load(f, **pickle_load_args)
    except EOFError as e:
        # CPython's pure-Python unpickler raises a bare EOFError where its C one (PyTorch's)
        # says "Ran out of input"
        if str(e):
            raise
        raise EOFError("Ran out of input") from None
    if magic_number != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol_version = pickle_module.load(f, **pickle_load_args)
    if protocol_version != PROTOCOL_VERSION:
        raise RuntimeError("Invalid protocol version: %s" % protocol_version)

    _sys_info = pickle_module.load(f, **pickle_load_args)
    unpickler = UnpicklerWrapper(f, **pickle_load_args)
    unpickler.persistent_load = persistent_load
    result = unpickler.load()

    deserialized_storage_keys = pickle_module.load(f, **pickle_load_args)
    offset = f.tell() if f_should_read_directly else None
    for key in deserialized_storage_keys:
        assert key in deserialized_objects
        typed_storage = deserialized_objects[key]
        typed_storage._storage._set_from_file(f, offset, f_should_read_directly,
                                              torch._utils._element_size(typed_storage.dtype))
        if offset is not None:
            offset = f.tell()
    torch._utils._validate_loaded_sparse_tensors()
    return result


def _is_tarfile(f):
    # a tar archive has "ustar" at byte 257 (the 0.1-0.3 checkpoints were tar archives)
    start = f.tell()
    head = f.read(262)
    f.seek(start)
    return len(head) == 262 and head[257:262] == b'ustar'


def _maybe_decode_ascii(bytes_str):
    # files written by Python 2 and read with encoding='bytes' hold some keys as bytes
    if isinstance(bytes_str, bytes):
        return bytes_str.decode('ascii')
    return bytes_str


def _get_restore_location(map_location):
    if map_location is None:
        restore_location = default_restore_location
    elif isinstance(map_location, dict):
        def restore_location(storage, location):
            location = map_location.get(location, location)
            return default_restore_location(storage, location)
    elif isinstance(map_location, str):
        def restore_location(storage, location):
            return default_restore_location(storage, map_location)
    elif isinstance(map_location, torch.device):
        def restore_location(storage, location):
            return default_restore_location(storage, str(map_location))
    else:
        def restore_location(storage, location):
            result = map_location(storage, location)
            if result is None:
                result = default_restore_location(storage, location)
            return result
    return restore_location


class StorageType:
    def __init__(self, name):
        self.dtype = _get_dtype_from_pickle_storage_type(name)

    def __str__(self):
        return f'StorageType(dtype={self.dtype})'


def _load(zip_file, map_location, pickle_module, pickle_file='data.pkl', **pickle_load_args):
    restore_location = _get_restore_location(map_location)
    loaded_storages = {}

    def load_tensor(dtype, nbytes, key, location):
        storage = zip_file.get_storage_from_record(f'data/{key}', nbytes)
        loaded_storages[key] = torch.storage.TypedStorage(
            wrap_storage=restore_location(storage, location), dtype=dtype)

    def persistent_load(saved_id):
        assert isinstance(saved_id, tuple)
        typename = _maybe_decode_ascii(saved_id[0])
        data = saved_id[1:]
        assert typename == 'storage', \
            f"Unknown typename for persistent_load, expected 'storage' but got '{typename}'"
        storage_type, key, location, numel = data
        if storage_type is torch.UntypedStorage:
            dtype = torch.uint8
        else:
            dtype = storage_type.dtype
        if key not in loaded_storages:
            nbytes = numel * torch._utils._element_size(dtype)
            load_tensor(dtype, nbytes, key, _maybe_decode_ascii(location))
        return loaded_storages[key]

    load_module_mapping = {
        # pytorch/pytorch#51633 moved torch.tensor to torch._tensor
        'torch.tensor': 'torch._tensor'
    }

    class UnpicklerWrapper(pickle_module.Unpickler):
        # storages pickle as their legacy class names; other globals resolve as pickle does,
        # with the modules PyTorch renamed mapped to their new names
        def find_class(self, mod_name, name):
            if type(name) is str and 'Storage' in name:
                try:
                    return StorageType(name)
                except KeyError:
                    pass
            mod_name = load_module_mapping.get(mod_name, mod_name)
            return super().find_class(mod_name, name)

    data_file = io.BytesIO(zip_file.get_record(pickle_file))
    unpickler = UnpicklerWrapper(data_file, **pickle_load_args)
    unpickler.persistent_load = persistent_load
    result = unpickler.load()
    torch._utils._validate_loaded_sparse_tensors()
    return result


def _is_torchscript_zip(zip_file):
    return 'constants.pkl' in zip_file.get_all_records()
