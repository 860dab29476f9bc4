# qsort with script comparators: libc calls back into the script through a libffi closure,
# for ints, doubles, and structures, ascending and descending; bsearch with a callback too.
import ctypes
import ctypes.util
from ctypes import CDLL, CFUNCTYPE, POINTER, Structure, c_int, c_double, c_size_t, c_void_p, sizeof, cast

libc = CDLL(ctypes.util.find_library("c"))
qsort = libc.qsort
qsort.restype = None

CMPFUNC = CFUNCTYPE(c_int, POINTER(c_int), POINTER(c_int))
calls = []


def py_cmp(a, b):
    calls.append(1)
    return a[0] - b[0]


values = [5, 1, 7, 33, 99, -3, 12, 0, 7]
arr = (c_int * len(values))(*values)
cmp_func = CMPFUNC(py_cmp)
qsort(arr, len(arr), sizeof(c_int), cmp_func)
print(list(arr), len(calls) > 0)

qsort(arr, len(arr), sizeof(c_int), CMPFUNC(lambda a, b: b.contents.value - a.contents.value))
print(list(arr))

DCMP = CFUNCTYPE(c_int, POINTER(c_double), POINTER(c_double))


def dcmp(a, b):
    x, y = a[0], b[0]
    return (x > y) - (x < y)


ds = (c_double * 6)(3.5, -1.25, 2.0, 1e10, -7.5, 0.0)
qsort(ds, len(ds), sizeof(c_double), DCMP(dcmp))
print(list(ds))


class Item(Structure):
    _fields_ = [("key", c_int), ("weight", c_double)]


ICMP = CFUNCTYPE(c_int, c_void_p, c_void_p)


def icmp(pa, pb):
    a = cast(pa, POINTER(Item)).contents
    b = cast(pb, POINTER(Item)).contents
    return (a.weight > b.weight) - (a.weight < b.weight)


items = (Item * 4)(Item(1, 0.5), Item(2, -2.0), Item(3, 9.0), Item(4, 0.25))
qsort(items, len(items), sizeof(Item), ICMP(icmp))
print([(it.key, it.weight) for it in items])

bsearch = libc.bsearch
bsearch.restype = POINTER(c_int)
bsearch.argtypes = [POINTER(c_int), POINTER(c_int), c_size_t, c_size_t, CMPFUNC]
sorted_ints = (c_int * 5)(1, 3, 5, 7, 9)
key = c_int(7)
hit = bsearch(key, sorted_ints, 5, sizeof(c_int), CMPFUNC(lambda a, b: a[0] - b[0]))
print(bool(hit), hit.contents.value, hit[0])
key.value = 4
miss = bsearch(key, sorted_ints, 5, sizeof(c_int), CMPFUNC(lambda a, b: a[0] - b[0]))
print(bool(miss))
