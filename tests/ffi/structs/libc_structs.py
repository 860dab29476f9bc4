# Structures crossing the C boundary: by value as arguments (inet_ntoa(struct in_addr),
# cabs(double complex), which the x86-64 and AArch64 ABIs pass as a struct of two doubles), by
# value as results (ldiv, csqrt), and by pointer (gmtime_r filling a struct tm, strftime
# reading it).
import ctypes
import ctypes.util
from ctypes import CDLL, Structure, POINTER, byref, pointer, c_int, c_long, c_double, c_uint32, c_char_p, c_size_t
from ctypes import create_string_buffer, sizeof

libc = CDLL(ctypes.util.find_library("c"))
libm = CDLL(ctypes.util.find_library("m"))


class in_addr(Structure):
    _fields_ = [("s_addr", c_uint32)]


inet_ntoa = libc.inet_ntoa
inet_ntoa.argtypes = [in_addr]
inet_ntoa.restype = c_char_p
print(inet_ntoa(in_addr(0x0100007F)), inet_ntoa(in_addr(0x04030201)))


class Complex(Structure):
    _fields_ = [("re", c_double), ("im", c_double)]


cabs = libm.cabs
cabs.argtypes = [Complex]
cabs.restype = c_double
print("cabs", cabs(Complex(3.0, 4.0)), cabs(Complex(-5, 12)))

csqrt = libm.csqrt
csqrt.argtypes = [Complex]
csqrt.restype = Complex
z = csqrt(Complex(-4.0, 0.0))
print("csqrt", z.re, z.im)
z = csqrt(Complex(3.0, 4.0))
print("csqrt", z.re, z.im)


class ldiv_t(Structure):
    _fields_ = [("quot", c_long), ("rem", c_long)]


ldiv = libc.ldiv
ldiv.argtypes = [c_long, c_long]
ldiv.restype = ldiv_t
r = ldiv(10 ** 12 + 7, 1000)
print("ldiv", r.quot, r.rem)


class tm(Structure):
    _fields_ = [("tm_sec", c_int), ("tm_min", c_int), ("tm_hour", c_int), ("tm_mday", c_int),
                ("tm_mon", c_int), ("tm_year", c_int), ("tm_wday", c_int), ("tm_yday", c_int),
                ("tm_isdst", c_int), ("tm_gmtoff", c_long), ("tm_zone", c_char_p)]


gmtime_r = libc.gmtime_r
gmtime_r.argtypes = [POINTER(c_long), POINTER(tm)]
gmtime_r.restype = POINTER(tm)
t = c_long(1700000000)
out = tm()
res = gmtime_r(byref(t), byref(out))
print("gmtime", out.tm_year + 1900, out.tm_mon + 1, out.tm_mday, out.tm_hour, out.tm_min, out.tm_sec,
      out.tm_wday, out.tm_yday)
print(res.contents.tm_year == out.tm_year, ctypes.addressof(res.contents) == ctypes.addressof(out))

strftime = libc.strftime
strftime.argtypes = [c_char_p, c_size_t, c_char_p, POINTER(tm)]
strftime.restype = c_size_t
buf = create_string_buffer(64)
n = strftime(buf, sizeof(buf), b"%Y-%m-%d %H:%M:%S", pointer(out))
print("strftime", n, buf.value)
