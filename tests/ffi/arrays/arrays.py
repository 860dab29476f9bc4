# Arrays: types made by T * n (cached), indexing with negative indices, slices with steps,
# iteration, len, item assignment, slice assignment, nested (2-D) arrays, arrays of
# structures (items are views), char arrays (.value / .raw), and ARRAY().
from ctypes import Structure, ARRAY, sizeof, c_int, c_float, c_double, c_char, c_uint8, c_bool


IntArr5 = c_int * 5
print(IntArr5.__name__, IntArr5._length_, IntArr5._type_.__name__, sizeof(IntArr5), IntArr5 is c_int * 5)
a = IntArr5(10, 20, 30)
print(len(a), list(a), a[0], a[-1], a[-5])
a[3] = 40
a[-1] = 50
print([x for x in a], sum(a), 30 in a)
print(a[1:4], a[::2], a[::-1], a[4:1:-1], a[10:])
a[0:2] = [1, 2]
a[::2] = (7, 8, 9)
print(list(a))

f = (c_float * 3)(1.5, 2.25)
print(list(f), type(f[0]).__name__)
d = (c_double * 2)()
d[0] = 1e300
d[1] = -0.1
print(d[0], d[1])

Matrix = (c_int * 3) * 2
m = Matrix((1, 2, 3), (4, 5, 6))
print(Matrix.__name__, sizeof(Matrix), m[1][2], [list(row) for row in m])
m[0][1] = 20
row = m[0]
row[0] = 10
print([list(r) for r in m])


class P(Structure):
    _fields_ = [("x", c_int), ("y", c_int)]


ps = (P * 3)(P(1, 2), (3, 4))
ps[2].x = 5
print([(p.x, p.y) for p in ps])

buf = (c_char * 6)()
buf.value = b"hi"
print(buf.value, buf.raw, buf[0], buf[:3], len(buf))
buf.raw = b"abcdef"
print(buf.value, buf[1:4])

bs = (c_uint8 * 4)(255, 256, -1, 7)
print(list(bs))
flags = ARRAY(c_bool, 3)(True, 0, "x")
print(list(flags), type(flags).__name__)
print(len((c_int * 0)()), list((c_int * 0)()))
