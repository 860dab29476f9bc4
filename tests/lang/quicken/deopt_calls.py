# CALL_PY_EXACT_ARGS and the method cache after the callee changes under a warmed call site:
# a function swapped for one with another signature, __code__ replaced, a method replaced on the
# type or shadowed by the instance, a builtin or a class in place of the function.


def two(a, b):
    return a + b


def three(a, b, c=10):
    return a + b + c


def star(*args):
    return sum(args)


def kwonly(a, b, *, c=5):
    return a * b + c


def gen(a, b):
    yield a
    yield b


def run(fn, n):
    out = []
    for i in range(n):
        out.append(fn(i, 1))
    return out


for fn in [two, three, star, kwonly, max, pow, divmod, gen]:
    r = run(fn, 4)
    print(fn.__name__, [list(x) if hasattr(x, "__next__") else x for x in r])


def site(fs):
    return [f(2, 3) for f in fs]


print(site([two] * 4 + [three, star, two, kwonly, two]))
print(site([two, two, lambda a, b: a ** b, two]))


def g(a, b):
    return "g"


def h(a, b):
    return "h"


calls = []
for i in range(6):
    if i == 3:
        g.__code__ = h.__code__
    calls.append(g(1, 2))
print(calls)

try:
    for i in range(5):
        two(1) if i == 4 else two(1, 2)
except TypeError as e:
    print("TypeError:", e)


def deep(n):
    return deep(n + 1)


try:
    deep(0)
except RecursionError:
    print("RecursionError")


class Acc:
    def __init__(self):
        self.total = 0

    def add(self, v):
        self.total += v
        return self


def drive(a, n):
    for i in range(n):
        a.add(i)
    return a.total


a = Acc()
print(drive(a, 10))
Acc.add = lambda self, v: setattr(self, "total", self.total - v) or self
print(drive(a, 10))
a.add = lambda v: print("instance attribute", v)
drive(a, 2)
del a.add
print(drive(a, 3))


class Other:
    total = "other"

    def add(self, v):
        return self


print(drive(Other(), 3))


def method_site(objs):
    return [o.add(1).total for o in objs]


b = Acc()
print(method_site([b, b, b, Other(), b]))
