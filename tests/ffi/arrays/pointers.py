# Pointers: POINTER(T) (cached, LP_ names), pointer(obj), .contents (reads and writes through),
# indexing past the first element, NULL pointers, cast between pointer types and from
# addresses, byref with offsets, addressof, c_void_p / c_char_p values.
import ctypes
from ctypes import (POINTER, pointer, cast, byref, addressof, sizeof, c_int, c_double, c_char, c_char_p,
                    c_void_p, c_uint8, c_int32, c_float, create_string_buffer)

PI = POINTER(c_int)
print(PI.__name__, PI is POINTER(c_int), PI._type_.__name__, sizeof(PI), POINTER(None).__name__)

x = c_int(5)
p = pointer(x)
print(type(p).__name__, p.contents.value, p[0], bool(p))
p.contents.value = 6
p[0] += 1
print(x.value)
y = c_int(100)
p.contents = y
print(p[0], x.value)

null = PI()
print(bool(null))

arr = (c_int * 4)(1, 2, 3, 4)
pa = cast(arr, PI)
print(pa[0], pa[3], pa[1:3])
pa[2] = 30
print(list(arr))

raw = (c_uint8 * 4)(0, 0, 128, 63)
fp = cast(raw, POINTER(c_float))
print(fp[0], fp.contents.value)

vp = cast(pointer(x), c_void_p)
print(vp.value == addressof(x), cast(vp, PI).contents.value)
back = cast(addressof(arr), PI)
print(back[1])

s = create_string_buffer(b"hello")
cp = cast(s, c_char_p)
print(cp.value, cast(s, POINTER(c_char))[1])

print(c_void_p().value, c_void_p(0).value, c_void_p(1234).value, c_char_p().value, c_char_p(b"abc").value)

pp = pointer(pointer(c_int(9)))
print(type(pp).__name__, pp.contents.contents.value, pp[0][0])

d = c_double(2.5)
dp = POINTER(c_double)(d)
print(dp.contents.value)
print(ctypes.string_at(addressof(s), 3), ctypes.string_at(byref(s, 1), 2))
