# A class statement takes the most derived metaclass of its bases (it used to always use
# `type`), so subclasses of ctypes' Structure get PyCStructType: `T * n`, the _fields_ setter
# and from_param come from it; bases with unrelated metaclasses are a metaclass conflict; an
# explicit metaclass=type is allowed.
import ctypes


class Point(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]


class Point3(Point, metaclass=type):
    _fields_ = [("z", ctypes.c_int)]


print(type(Point).__name__, type(Point3).__name__, type(ctypes.c_int).__name__)
pts = (Point3 * 2)(Point3(1, 2, 3), Point3(4, 5, 6))
print(type(pts).__name__, [(p.x, p.y, p.z) for p in pts])


class Node(ctypes.Structure):
    pass


Node._fields_ = [("value", ctypes.c_int), ("next", ctypes.POINTER(Node))]
print(ctypes.sizeof(Node), Node.value)

try:
    class Both(ctypes.c_int, ctypes.Structure):
        pass
except TypeError as e:
    print("TypeError:", e)


class Plain(object):
    pass


print(type(Plain).__name__)
print(bytes(Point(1, 2)), bytes((ctypes.c_short * 2)(1, 2)))
