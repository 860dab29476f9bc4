# CFUNCTYPE callbacks: prototypes are cached classes, callbacks are called from C (qsort) and
# through their own function pointer, with int/double/pointer/struct arguments and results,
# None (void) results, closures over script state, nested C -> script -> C -> script calls,
# callbacks stored in structure fields and cast to other prototypes, errno with use_errno.
import ctypes
import ctypes.util
from ctypes import (CDLL, CFUNCTYPE, POINTER, Structure, cast, pointer, sizeof, byref, c_int, c_double,
                    c_float, c_char_p, c_void_p, c_long, c_bool)

libc = CDLL(ctypes.util.find_library("c"))

BINOP = CFUNCTYPE(c_int, c_int, c_int)
print(BINOP is CFUNCTYPE(c_int, c_int, c_int), BINOP.__name__, BINOP._argtypes_ == (c_int, c_int),
      BINOP._restype_ is c_int)
add = BINOP(lambda a, b: a + b)
print(add(2, 3), add(-10, 4), bool(add))

DFUN = CFUNCTYPE(c_double, c_double, c_float)
scale = DFUN(lambda x, y: x * y + 0.5)
print(scale(1.5, 2.0), type(scale(0, 0)).__name__)

seen = []
VOIDFN = CFUNCTYPE(None, c_char_p, c_long)
log = VOIDFN(lambda s, n: seen.append((s, n)))
print(log(b"first", 1), log(b"second", -2 ** 40), seen)

BOOLFN = CFUNCTYPE(c_bool, c_int)
is_even = BOOLFN(lambda n: n % 2 == 0)
print([is_even(i) for i in range(4)])


class Pair(Structure):
    _fields_ = [("a", c_int), ("b", c_double)]


PAIRFN = CFUNCTYPE(c_double, POINTER(Pair), Pair)


def pair_fn(pp, pv):
    pp.contents.a += 100           # writes through the pointer
    pv.a = -1                      # the by-value copy is the callback's own
    return pp.contents.b + pv.b


pf = PAIRFN(pair_fn)
p1 = Pair(1, 0.25)
p2 = Pair(2, 0.5)
print(pf(byref(p1), p2), p1.a, p2.a)

MAKEPAIR = CFUNCTYPE(Pair, c_int)
mk = MAKEPAIR(lambda n: Pair(n, n / 4))
r = mk(3)
print(type(r).__name__, r.a, r.b)

counter = [0]


def make_counter(step):
    def bump(n):
        counter[0] += step * n
        return counter[0]
    return BINOP(lambda a, b: bump(a) + b)


c = make_counter(10)
print(c(1, 0), c(2, 5), counter)

CMP = CFUNCTYPE(c_int, POINTER(c_int), POINTER(c_int))
qsort = libc.qsort
qsort.restype = None
qsort.argtypes = [c_void_p, ctypes.c_size_t, ctypes.c_size_t, CMP]
inner_sorted = []


def outer_cmp(a, b):
    # sorting inside a comparator: C -> script -> C -> script
    if not inner_sorted:
        tmp = (c_int * 3)(3, 1, 2)
        qsort(tmp, 3, sizeof(c_int), CMP(lambda x, y: x[0] - y[0]))
        inner_sorted.append(list(tmp))
    return b[0] - a[0]


data = (c_int * 5)(4, 9, 1, 7, 3)
qsort(data, 5, sizeof(c_int), CMP(outer_cmp))
print(list(data), inner_sorted)


class Ops(Structure):
    _fields_ = [("op", BINOP), ("name", c_char_p)]


ops = Ops(BINOP(lambda a, b: a * b), b"mul")
print(ops.name, ops.op(6, 7), type(ops.op).__name__)
addr = cast(add, c_void_p).value
again = BINOP(addr)
print(again(20, 22), addr == ctypes.cast(add, c_void_p).value)

libc_errno = CDLL(ctypes.util.find_library("c"), use_errno=True)
ctypes.set_errno(0)
fd = libc_errno.open(b"/nonexistent/ember/file", 0)
print(fd, ctypes.get_errno())
print(ctypes.set_errno(5), ctypes.get_errno())
