# libc and libm numeric functions: abs/labs with C ints, div returning a struct by value,
# cos/pow/fabs/hypot with doubles, frexp and modf writing through byref.
import math
import ctypes
import ctypes.util
from ctypes import CDLL, Structure, c_int, c_long, c_double, c_float, byref, POINTER, pointer

libc = CDLL(ctypes.util.find_library("c"))
libm = CDLL(ctypes.util.find_library("m"))

print("abs", libc.abs(-42), libc.abs(17))
labs = libc.labs
labs.argtypes = [c_long]
labs.restype = c_long
print("labs", labs(-(2 ** 40)))


class div_t(Structure):
    _fields_ = [("quot", c_int), ("rem", c_int)]


div = libc.div
div.argtypes = [c_int, c_int]
div.restype = div_t
r = div(17, 5)
print("div", type(r).__name__, r.quot, r.rem)
r = div(-17, 5)
print("div", r.quot, r.rem)

cos = libm.cos
cos.argtypes = [c_double]
cos.restype = c_double
print("cos", cos(0.0), cos(math.pi), round(cos(1.0), 12))

pow_ = libm.pow
pow_.argtypes = [c_double, c_double]
pow_.restype = c_double
print("pow", pow_(2, 10), pow_(2.5, 2.0), pow_(9, 0.5))

hypot = libm.hypot
hypot.restype = c_double
print("hypot", hypot(c_double(3), c_double(4)))

sqrtf = libm.sqrtf
sqrtf.argtypes = [c_float]
sqrtf.restype = c_float
print("sqrtf", sqrtf(2.0), sqrtf(16))

frexp = libm.frexp
frexp.argtypes = [c_double, POINTER(c_int)]
frexp.restype = c_double
e = c_int()
m = frexp(48.0, byref(e))
print("frexp", m, e.value, math.frexp(48.0))
m = frexp(0.375, e)          # a c_int where POINTER(c_int) is expected passes by reference
print("frexp", m, e.value)
ep = pointer(c_int(0))
m = frexp(-5.0, ep)
print("frexp", m, ep.contents.value, ep[0])

modf = libm.modf
modf.argtypes = [c_double, POINTER(c_double)]
modf.restype = c_double
ip = c_double()
frac = modf(3.75, byref(ip))
print("modf", frac, ip.value)

ldexp = libm.ldexp
ldexp.restype = c_double
ldexp.argtypes = (c_double, c_int)
print("ldexp", ldexp(0.75, 4), ldexp.argtypes == (c_double, c_int), ldexp.restype is c_double)

# the loader object, and the symbols of the running program (CDLL(None))
m2 = ctypes.cdll.LoadLibrary(ctypes.util.find_library("m"))
m2.fabs.restype = c_double
print("cdll", m2.fabs(c_double(-2.5)), type(m2).__name__, m2._name)
me = CDLL(None)
print("self", me.strlen(b"four"), me["labs"](-3))
