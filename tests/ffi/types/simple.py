# The simple types: sizes, default values, conversions and wrap-around on assignment, reprs,
# truth values, aliases (c_int64 is c_long, c_size_t is c_ulong), subclasses of simple types
# (instances instead of values), from_param results, type and mro of the classes.
import ctypes
from ctypes import *

types = [c_bool, c_char, c_byte, c_ubyte, c_short, c_ushort, c_int, c_uint, c_long, c_ulong, c_longlong,
         c_float, c_double, c_char_p, c_void_p, c_wchar, c_wchar_p, c_size_t, c_ssize_t]
for t in types:
    print(t.__name__, sizeof(t), alignment(t), t._type_, repr(t().value))

print(c_int64 is c_long, c_uint64 is c_ulong, c_size_t is c_ulong, c_int32 is c_int, c_uint8 is c_ubyte)
print(c_int(42), c_double(2.5), c_float(0.1), c_bool(7), c_char(b"x"), c_uint(3), c_short(-2), c_byte(-128))
print(c_int(2 ** 31).value, c_int(-2 ** 31 - 1).value, c_uint(-1).value, c_uint8(300).value, c_int8(200).value)
print(c_ushort(70000).value, c_short(40000).value, c_long(-7).value, c_ulong(9223372036854775807).value)
print(c_float(1.1).value, c_float(3).value, c_double(7).value, c_double(True).value)
print(c_char(65).value, c_char(b"\xff").value, c_bool(None).value, c_bool([1]).value, c_bool("").value)
print(c_wchar("é").value, c_wchar_p("héllo ✓").value, c_char_p(b"bytes").value)

v = c_int(1)
v.value = 99
v.value += 1
print(v.value, bool(v), bool(c_int(0)), bool(c_double(0.0)), bool(c_void_p()))
v = c_double()
v.value = 10
print(v.value, type(v.value).__name__)


class my_int(c_int):
    pass


print(my_int(5).value, type(my_int._type_).__name__, my_int._type_, sizeof(my_int))
arr = (my_int * 2)(1, 2)
print(type(arr[0]).__name__, arr[0].value, arr[1].value)
print(type(c_int.from_param(3)).__name__, c_int.from_param(c_int(4)).value)
print([k.__name__ for k in c_int.__mro__], type(c_int).__name__, type(type(c_int)).__name__)
print(isinstance(c_int(1), ctypes._SimpleCData), issubclass(c_double, ctypes._SimpleCData))
print(c_int.__module__, c_int.__name__, c_int.__qualname__)
