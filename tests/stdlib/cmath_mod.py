# cmath against CPython 3.11: every function over a grid of special and ordinary values (signed
# zeros, +-1, +-inf, nan, the smallest subnormal, near-overflow), printed as float.hex so each
# result's last bit and zero sign show; branch cuts; log with bases; polar/rect; isclose; the
# errors (domain, range, argument conversion and counts, with their messages); and a CRC of
# each function's results over a few thousand pseudo-random points of every magnitude.
import cmath
import math
import struct
import warnings
import zlib

INF = float("inf")
NAN = float("nan")

def h(x):
    return "nan" if math.isnan(x) else float.hex(x)

def show(v):
    if isinstance(v, complex):
        return h(v.real) + "," + h(v.imag)
    if isinstance(v, float):
        return h(v)
    if isinstance(v, tuple):
        return "(" + " ".join(show(x) for x in v) + ")"
    return repr(v)

def call(f, *args, **kw):
    try:
        return show(f(*args, **kw))
    except Exception as e:
        return type(e).__name__ + ": " + str(e)

print("constants", show(cmath.pi), show(cmath.e), show(cmath.tau), show(cmath.inf), show(cmath.infj))
print("nan", cmath.nan, cmath.nanj, math.copysign(1.0, cmath.nan), math.copysign(1.0, cmath.nanj.imag),
      cmath.nanj.real)
print("doc", repr(cmath.__doc__))

PARTS = [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 5e-324, -5e-324, 1e308, -1e308, 2.0, -0.5, 1e-310,
         2.2250738585072014e-308, 3.0e-160, 1e154, 0.71, 710.0, -745.5]
UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "log", "log10",
         "sin", "sinh", "sqrt", "tan", "tanh", "phase", "polar", "isfinite", "isinf", "isnan"]

for name in UNARY:
    f = getattr(cmath, name)
    print("==", name)
    for re in PARTS:
        row = []
        for im in PARTS:
            row.append(call(f, complex(re, im)))
        print(h(re), " | ".join(row))

print("== rect")
for r in PARTS:
    print(h(r), " | ".join(call(cmath.rect, r, phi) for phi in PARTS + [math.pi, -math.pi / 2, 3.0, 1e300]))

# branch cuts: just either side of the cuts, on them with both zero signs
print("== branch cuts")
for name in ["sqrt", "log", "log10", "acos", "asin", "atanh", "atan", "asinh", "acosh"]:
    f = getattr(cmath, name)
    for z in [complex(-2.0, 0.0), complex(-2.0, -0.0), complex(2.0, 0.0), complex(2.0, -0.0),
              complex(0.0, 2.0), complex(-0.0, 2.0), complex(0.0, -2.0), complex(-0.0, -2.0),
              complex(0.5, 0.0), complex(0.5, -0.0), complex(-0.5, -0.0), complex(1.0, 1e-300),
              complex(1.0, -1e-300), complex(-1.0, 0.0), complex(0.0, 1.0), complex(1e-200, 1.0)]:
        print(name, show(z), call(f, z))

# plain numbers and other argument kinds
print("== argument kinds")
class WithComplex:
    def __complex__(self):
        return 3 - 4j
class WithFloat:
    def __float__(self):
        return 0.25
class WithIndex:
    def __index__(self):
        return 7
class Sub(complex):
    pass
class FSub(float):
    pass
class BadComplex:
    def __complex__(self):
        return 5
class StrComplex:
    def __complex__(self):
        return "x"
class BadFloat:
    def __float__(self):
        return 4
class Raising:
    def __float__(self):
        raise KeyError("inner")
class SubComplex:
    def __complex__(self):
        return Sub(2, 2)
class ComplexAndFloat:
    def __complex__(self):
        return 1j
    def __float__(self):
        return 9.0
for arg in [4, -4, True, False, 2.5, -9.0, 10**300, WithComplex(), WithFloat(), WithIndex(), Sub(-1, 0),
            FSub(-2.0), ComplexAndFloat(), BadComplex(), StrComplex(), BadFloat(), Raising(), "1", None,
            [1], 2**1024, -(2**1024)]:
    print(type(arg).__name__, call(cmath.sqrt, arg), call(cmath.exp, arg), call(cmath.phase, arg),
          call(cmath.rect, arg, 1.0), call(cmath.rect, 1.0, arg), call(cmath.isnan, arg),
          call(cmath.log, 2, arg), call(cmath.isclose, arg, 1), call(cmath.isclose, 1, 1, abs_tol=arg))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("subclass from __complex__", call(cmath.sqrt, SubComplex()))
    for w in caught:
        print(w.category.__name__, w.message)

print("== log bases")
for x in [0, 0j, -0.0, 1, -1, 2, 1j, -1j, 8, 100, 1e-300, INF, NAN, complex(INF, INF), complex(3, 4)]:
    print(show(complex(x)), " | ".join(call(cmath.log, x, b) for b in
                                      [2, 10, 0.5, 1, -1, 1j, 0, 0j, -0.0, INF, NAN, complex(1, 1), math.e, 1e-300]))

print("== polar rect round trips")
for z in [1 + 1j, -1 + 0j, complex(-1, -0.0), 3 - 4j, 1e-300 + 1e-300j, complex(1e308, 1e308),
          complex(1.5e308, 1.5e308), complex(INF, NAN), complex(NAN, INF), complex(NAN, 1), complex(5e-324, 0),
          complex(-0.0, -0.0), complex(0.0, -0.0), 123.456 - 654.321j]:
    p = call(cmath.polar, z)
    try:
        r, phi = cmath.polar(z)
        back = call(cmath.rect, r, phi)
    except Exception as e:
        back = type(e).__name__
    print(show(z), p, back, call(cmath.phase, z), call(abs, z))

print("== isclose")
for a, b, kw in [(1, 1, {}), (1, 1 + 1e-10, {}), (1, 1 + 1e-8, {}), (1j, 1.0000000001j, {}),
                 (0, 1e-300, {}), (0, 1e-300, {"abs_tol": 1e-299}), (complex(INF, 0), complex(INF, 0), {}),
                 (complex(INF, 0), complex(-INF, 0), {}), (complex(INF, 1), complex(INF, 2), {}),
                 (complex(NAN, 0), complex(NAN, 0), {}), (NAN, 1, {"abs_tol": INF}), (1, 2, {"rel_tol": 0.5}),
                 (1, 2, {"rel_tol": 0.49}), (1, 2, {"abs_tol": 1.0}), (1, 2, {"abs_tol": 0.99}),
                 (1e308, -1e308, {"rel_tol": 1.0}), (complex(1e308, 1e308), 0, {"rel_tol": 1.0}),
                 (1 + 1j, 1 - 1j, {"rel_tol": 2.0}), (1, 2, {"rel_tol": INF}), (1, 2, {"rel_tol": NAN}),
                 (1, 2, {"rel_tol": -1}), (1, 2, {"abs_tol": -0.5}), (1, 2, {"rel_tol": -0.0}),
                 (1, 2, {"rel_tol": 1, "abs_tol": -1}), (1, 2, {"rel_tol": "x"}), (1, 2, {"abs_tol": None}),
                 (1, 2, {"rel_tol": True}), (1, 2, {"abs_tol": 1j})]:
    print(show(complex(a)) if not isinstance(a, complex) else show(a), call(cmath.isclose, a, b, **kw), sorted(kw))

print("== argument count and keyword errors")
for f, args, kw in [(cmath.sqrt, (), {}), (cmath.sqrt, (1, 2), {}), (cmath.sqrt, (), {"z": 1}),
                    (cmath.acos, (1,), {"x": 1}), (cmath.isnan, (), {}), (cmath.phase, (1, 2), {}),
                    (cmath.polar, (), {}), (cmath.log, (), {}), (cmath.log, (1, 2, 3), {}),
                    (cmath.log, (1,), {"base": 2}), (cmath.rect, (1,), {}), (cmath.rect, (1, 2, 3), {}),
                    (cmath.rect, (), {"r": 1, "phi": 2}), (cmath.isclose, (), {}), (cmath.isclose, (1,), {}),
                    (cmath.isclose, (1, 2, 3), {}), (cmath.isclose, (1, 2, 3, 4), {}),
                    (cmath.isclose, (), {"b": 1}), (cmath.isclose, (), {"a": 1, "b": 1}),
                    (cmath.isclose, (1,), {"a": 2}), (cmath.isclose, (1, 2), {"a": 3}),
                    (cmath.isclose, (1, 2), {"rel_tol": 1, "b": 3}), (cmath.isclose, (1, 2), {"foo": 1}),
                    (cmath.isclose, (1, 2), {"foo": 1, "a": 1}), (cmath.isclose, (1, 2), {"abs_tol": 1, "x": 3}),
                    (cmath.isclose, (1,), {"b": 1, "abs_tol": 0.5, "rel_tol": 0.1}),
                    (cmath.isclose, (1, 2, 3), {"a": 1}), (cmath.tanh, ("x",), {}), (cmath.log, ("x", "y"), {}),
                    (cmath.log, (0, "y"), {}), (cmath.rect, ("a", "b"), {}), (cmath.rect, (1j, 1), {})]:
    print(f.__name__, call(f, *args, **kw))

print("== names")
print(sorted(n for n in dir(cmath) if not n.startswith("_")))
print([getattr(cmath, n).__name__ for n in UNARY + ["rect", "isclose"]])

# CRC of each function's results over pseudo-random points of every magnitude and sign
print("== crc")
state = 12345
def rnd():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return state

def rnd_double():
    kind = rnd() >> 61   # the high bits: an LCG's low bits have short periods
    if kind < 3:   # any finite bit pattern
        bits = ((rnd() >> 32) << 32) | (rnd() >> 32)
        x = struct.unpack("<d", struct.pack("<Q", bits))[0]
        return x if math.isfinite(x) else 1.5
    if kind < 6:   # moderate: a fraction times 2**e, e in [-8, 8]
        return (rnd() / 2.0**64 - 0.5) * 2.0 ** ((rnd() >> 40) % 17 - 8)
    if kind == 6:  # near 1 in magnitude, either sign
        r = rnd() >> 40
        return (1.0 + (r % 2001 - 1000) * 2.0**-40) * (-1.0 if r & (1 << 20) else 1.0)
    return [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0][(rnd() >> 40) % 7]

points = [complex(rnd_double(), rnd_double()) for _ in range(3000)]
for name in UNARY + ["rect", "log2base"]:
    crc = 0
    counts = {}
    for i, z in enumerate(points):
        if name == "rect":
            out = call(cmath.rect, z.real, z.imag)
        elif name == "log2base":
            out = call(cmath.log, z, points[(i * 7 + 3) % len(points)])
        else:
            out = call(getattr(cmath, name), z)
        crc = zlib.crc32(out.encode(), crc)
        k = out.split(":")[0] if ":" in out else "ok"
        counts[k] = counts.get(k, 0) + 1
    print(name, hex(crc), sorted(counts.items()))
