"""ctypes for Ember scripts: CPython's ctypes API on libffi.  The data types, function pointers
and memory functions are native (_ctypes, src/ffi); this module names the C types and defines
the library loaders, as CPython's ctypes/__init__.py does."""
import _ctypes
from _ctypes import Structure, Union, Array, _Pointer, _SimpleCData, CFuncPtr as _CFuncPtr
from _ctypes import ArgumentError, POINTER, pointer, ARRAY, sizeof, alignment, byref, addressof
from _ctypes import cast, memmove, memset, string_at, wstring_at, get_errno, set_errno
from _ctypes import FUNCFLAG_CDECL as _FUNCFLAG_CDECL
from _ctypes import FUNCFLAG_PYTHONAPI as _FUNCFLAG_PYTHONAPI
from _ctypes import FUNCFLAG_USE_ERRNO as _FUNCFLAG_USE_ERRNO
from _ctypes import FUNCFLAG_USE_LASTERROR as _FUNCFLAG_USE_LASTERROR
from _ctypes import RTLD_LOCAL, RTLD_GLOBAL

__version__ = "1.1.0"

DEFAULT_MODE = RTLD_LOCAL


class c_short(_SimpleCData):
    _type_ = "h"


class c_ushort(_SimpleCData):
    _type_ = "H"


class c_long(_SimpleCData):
    _type_ = "l"


class c_ulong(_SimpleCData):
    _type_ = "L"


class c_int(_SimpleCData):
    _type_ = "i"


class c_uint(_SimpleCData):
    _type_ = "I"


class c_float(_SimpleCData):
    _type_ = "f"


class c_double(_SimpleCData):
    _type_ = "d"


class c_longdouble(_SimpleCData):
    _type_ = "g"


# long long is long on LP64 Linux, as CPython aliases it
c_longlong = c_long
c_ulonglong = c_ulong


class c_ubyte(_SimpleCData):
    _type_ = "B"


class c_byte(_SimpleCData):
    _type_ = "b"


class c_char(_SimpleCData):
    _type_ = "c"


class c_char_p(_SimpleCData):
    _type_ = "z"

    def __repr__(self):
        return "%s(%s)" % (self.__class__.__name__, c_void_p.from_buffer(self).value)


class c_void_p(_SimpleCData):
    _type_ = "P"


c_voidp = c_void_p


class c_bool(_SimpleCData):
    _type_ = "?"


class c_wchar_p(_SimpleCData):
    _type_ = "Z"

    def __repr__(self):
        return "%s(%s)" % (self.__class__.__name__, c_void_p.from_buffer(self).value)


class c_wchar(_SimpleCData):
    _type_ = "u"


c_size_t = c_ulong
c_ssize_t = c_long
c_int8 = c_byte
c_uint8 = c_ubyte
c_int16 = c_short
c_uint16 = c_ushort
c_int32 = c_int
c_uint32 = c_uint
c_int64 = c_long
c_uint64 = c_ulong
c_time_t = c_long


class LittleEndianStructure(Structure):
    """Structure with little endian byte order (the native order on the machines Ember runs on)."""


class LittleEndianUnion(Union):
    """Union with little endian byte order."""


class BigEndianStructure(Structure):
    """Structure with big endian byte order: not supported by Ember."""

    def __init_subclass__(cls, **kwargs):
        raise NotImplementedError("BigEndianStructure is not supported")


class BigEndianUnion(Union):
    """Union with big endian byte order: not supported by Ember."""

    def __init_subclass__(cls, **kwargs):
        raise NotImplementedError("BigEndianUnion is not supported")


def create_string_buffer(init, size=None):
    """create_string_buffer(aBytes) -> character array
    create_string_buffer(anInteger) -> character array
    create_string_buffer(aBytes, anInteger) -> character array
    """
    if isinstance(init, bytes):
        if size is None:
            size = len(init) + 1
        buftype = c_char * size
        buf = buftype()
        buf.value = init
        return buf
    elif isinstance(init, int):
        buftype = c_char * init
        buf = buftype()
        return buf
    raise TypeError(init)


c_buffer = create_string_buffer


def create_unicode_buffer(init, size=None):
    if isinstance(init, str):
        if size is None:
            size = len(init) + 1
        buftype = c_wchar * size
        buf = buftype()
        buf.value = init
        return buf
    elif isinstance(init, int):
        buftype = c_wchar * init
        buf = buftype()
        return buf
    raise TypeError(init)


_c_functype_cache = {}


def CFUNCTYPE(restype, *argtypes, **kw):
    """CFUNCTYPE(restype, *argtypes, use_errno=False, use_last_error=False) -> function prototype."""
    flags = _FUNCFLAG_CDECL
    if kw.pop("use_errno", False):
        flags |= _FUNCFLAG_USE_ERRNO
    if kw.pop("use_last_error", False):
        flags |= _FUNCFLAG_USE_LASTERROR
    if kw:
        raise ValueError("unexpected keyword argument(s) %s" % kw.keys())
    key = (restype, argtypes, flags)
    if key in _c_functype_cache:
        return _c_functype_cache[key]

    class CFunctionType(_CFuncPtr):
        _argtypes_ = argtypes
        _restype_ = restype
        _flags_ = flags

    _c_functype_cache[key] = CFunctionType
    return CFunctionType


def PYFUNCTYPE(restype, *argtypes):
    raise NotImplementedError("PYFUNCTYPE is not supported")


class CDLL(object):
    """An instance of this class represents a loaded dll/shared library, exporting functions
    using the standard C calling convention (named 'cdecl' on Windows).

    The exported functions can be accessed as attributes, or by indexing with the function
    name.  Examples:

    <obj>.qsort -> callable object
    <obj>['qsort'] -> callable object
    """
    _func_flags_ = _FUNCFLAG_CDECL
    _func_restype_ = c_int
    _name = "<uninitialized>"
    _handle = 0
    _FuncPtr = None

    def __init__(self, name, mode=DEFAULT_MODE, handle=None, use_errno=False, use_last_error=False,
                 winmode=None):
        self._name = name
        flags = self._func_flags_
        if use_errno:
            flags |= _FUNCFLAG_USE_ERRNO
        if use_last_error:
            flags |= _FUNCFLAG_USE_LASTERROR

        class _FuncPtr(_CFuncPtr):
            _flags_ = flags
            _restype_ = self._func_restype_

        self._FuncPtr = _FuncPtr
        if handle is None:
            self._handle = _ctypes.dlopen(self._name, mode)
        else:
            self._handle = handle

    def __repr__(self):
        return "<%s '%s', handle %x at %#x>" % (self.__class__.__name__, self._name, self._handle, id(self))

    def __getattr__(self, name):
        if name.startswith('__') and name.endswith('__'):
            raise AttributeError(name)
        func = self.__getitem__(name)
        setattr(self, name, func)
        return func

    def __getitem__(self, name_or_ordinal):
        func = self._FuncPtr((name_or_ordinal, self))
        if not isinstance(name_or_ordinal, int):
            func.__name__ = name_or_ordinal
        return func


class PyDLL(CDLL):
    _func_flags_ = _FUNCFLAG_CDECL | _FUNCFLAG_PYTHONAPI

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("PyDLL is not supported")


class LibraryLoader(object):
    def __init__(self, dlltype):
        self._dlltype = dlltype

    def __getattr__(self, name):
        if name[0] == '_':
            raise AttributeError(name)
        dll = self._dlltype(name)
        setattr(self, name, dll)
        return dll

    def __getitem__(self, name):
        return getattr(self, name)

    def LoadLibrary(self, name):
        return self._dlltype(name)


cdll = LibraryLoader(CDLL)


def SetPointerType(pointer, cls):
    raise NotImplementedError("SetPointerType is not supported")
