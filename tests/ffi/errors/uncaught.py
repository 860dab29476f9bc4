# An uncaught ctypes.ArgumentError prints with its module name, after the line that made the
# call, and the script exits with status 1.
import ctypes
import ctypes.util

libm = ctypes.CDLL(ctypes.util.find_library("m"))
sqrt = libm.sqrt
sqrt.argtypes = [ctypes.c_double]
sqrt.restype = ctypes.c_double
print(sqrt(2.25))
print(sqrt("nine"))
