# PEP 563: under `from __future__ import annotations` every annotation is the string CPython's
# unparser makes of it (normalised spacing, minimal parentheses, constants by repr).
from __future__ import annotations
import sys
def f(a: Dict[str, int] | None, b: 0x10 = 1, *c: 1e10, d: a ** (-b), e: (a,) = 2, **k: lambda x, *y, z=1, **w: (x, y)) -> 'x': pass
print(f.__annotations__)
def g(a: 1e400, b: -1e400, c: [x for x in y if x] , d: {k: v async for k, v in z}, e: (yield_ if 1 else 2),
      f: not a and b or c, g: (a if b else c)[1:2, ::3], h: f"{x!r:>{w}} {{lit}} {y=}", i: b'\x00ab', j: "it's", k: 'a"b\'c',
      l: a.b.c(1, *d, e=2, **f), m: (1).real, n: 1.5.real, o: True.real, p: ..., q: lambda: 0, r: lambda *a: 0,
      s: lambda a, /, b: 0, t: await_ < 3 <= 4 is not None not in q, u: -~+a, v: (-a) ** -b, w: ((a, b), [c, d], {e, f}),
      x: {**a, 'b': 1}, y: a @ b // c % d << e >> f & g ^ h | i, z: (x for x in y), aa: f(x for x in y), ab: f((x for x in y), 1),
      ac: u'unicode', ad: 123456789012345678901234567890, ae: 1_000, af: 0o17 + 0b11, ag: 'multi'
      'line', ai: a[1:2], aj: a[:], ak: a[::], al: a[b:c:d], am: a[()], an: a[(1,)], ao: a[*b]): pass
for k, v in g.__annotations__.items(): print(k, v)
x: List[int] = []
y: 'str'
class C:
    z: Optional[C] = None
print(__annotations__, C.__annotations__)
