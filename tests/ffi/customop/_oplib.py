# The paths of the test op libraries (built by meson; the test passes them in the environment).
import ctypes
import ctypes.util

_libc = ctypes.CDLL(ctypes.util.find_library("c"))
_libc.getenv.restype = ctypes.c_char_p
_libc.getenv.argtypes = [ctypes.c_char_p]


def path(var):
    p = _libc.getenv(var.encode())
    if p is None:
        raise RuntimeError("set %s to the library built by meson (see tests/ffi/meson.build)" % var)
    return p.decode()
