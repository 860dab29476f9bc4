# Structures and unions: layout (sizeof, alignment, field offsets), nested structures, arrays
# and pointers as fields, positional/keyword init, inheritance, late _fields_ for a
# self-referential type, _pack_, unions sharing memory, copies vs views.
from ctypes import (Structure, Union, POINTER, pointer, sizeof, alignment, addressof, byref, c_char, c_char_p,
                    c_double, c_float, c_int, c_int8, c_int16, c_int64, c_uint8, c_uint32, c_void_p, c_bool)


class POINT(Structure):
    _fields_ = [("x", c_int), ("y", c_int)]


class RECT(Structure):
    _fields_ = [("a", POINT), ("b", POINT)]


class Mixed(Structure):
    _fields_ = [("flag", c_bool), ("d", c_double), ("c", c_int8), ("i", c_int), ("s", c_int16)]


print("sizes", sizeof(POINT), sizeof(RECT), sizeof(Mixed), alignment(Mixed), alignment(POINT))
print("offsets", [(name, getattr(Mixed, name).offset, getattr(Mixed, name).size) for name, _ in Mixed._fields_])
print(POINT.x, POINT.y, RECT.b)

p = POINT(3, 4)
print(p.x, p.y)
p.x = 10
p.y += 5
print(p.x, p.y)
q = POINT(y=2)
print(q.x, q.y)

r = RECT(POINT(1, 2), POINT(3, 4))
print(r.a.x, r.a.y, r.b.x, r.b.y)
b = r.b                     # a view into r's memory
b.x = 99
print(r.b.x, b._b_base_ is r)
r.a = (7, 8)                # a tuple initialises a nested structure
print(r.a.x, r.a.y)
r2 = RECT(b=(5, 6))
print(r2.a.x, r2.b.x, r2.b.y)


class Inner(Structure):
    _fields_ = [("vals", c_int * 3), ("name", c_char * 8), ("ptr", POINTER(c_int)), ("s", c_char_p)]


inner = Inner()
inner.vals[1] = 5
inner.vals = (1, 2, 3)
inner.name = b"ember"
target = c_int(41)
inner.ptr = pointer(target)
inner.ptr.contents.value += 1
inner.s = b"kept alive"
print(list(inner.vals), inner.name, target.value, inner.ptr[0], inner.s, type(inner.vals).__name__)


class Base(Structure):
    _fields_ = [("a", c_int)]


class Derived(Base):
    _fields_ = [("b", c_double)]


d = Derived(1, 2.5)
print(sizeof(Base), sizeof(Derived), d.a, d.b, [f[0] for f in Derived._fields_], Derived.b.offset)


class Node(Structure):
    pass


Node._fields_ = [("value", c_int), ("next", POINTER(Node))]
n3 = Node(3, None)
n2 = Node(2, pointer(n3))
n1 = Node(1, pointer(n2))
vals = []
cur = n1
while True:
    vals.append(cur.value)
    if not cur.next:
        break
    cur = cur.next.contents
print("list", vals, sizeof(Node))


class Packed(Structure):
    _pack_ = 1
    _fields_ = [("a", c_uint8), ("b", c_uint32), ("c", c_uint8)]


print("packed", sizeof(Packed), Packed.b.offset, Packed.c.offset, alignment(Packed))


class Value(Union):
    _fields_ = [("i", c_uint32), ("f", c_float), ("bytes", c_uint8 * 4)]


v = Value()
v.f = 1.0
print("union", sizeof(Value), hex(v.i), list(v.bytes))
v.i = 0x40490FDB
print(round(v.f, 5))

copy = POINT.from_buffer_copy(bytes([1, 0, 0, 0, 2, 0, 0, 0]))
print("from_buffer_copy", copy.x, copy.y)
alias = POINT.from_address(addressof(p))
alias.x = -1
print("from_address", p.x, p.y)
