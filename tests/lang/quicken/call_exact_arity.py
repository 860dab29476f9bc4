# CALL_PY_EXACT_ARGS finds the callable and its arguments from whether the slot below the
# callable is empty: (null, function, args) for a plain call, (function, self, args) for a method.
# One `o.f(...)` site sees both shapes when f is a method on one object and a function stored on
# another instance, and every arity from 0 to 6 goes through the copy of the arguments (one
# argument takes a path of its own ahead of the others).


class M:
    def f0(self):
        return ("M.f0",)

    def f1(self, a):
        return ("M.f1", a)

    def f2(self, a, b):
        return ("M.f2", a, b)

    def f5(self, a, b, c, d, e):
        return ("M.f5", a, b, c, d, e)

    def f6(self, a, b, c, d, e, g):
        return ("M.f6", a, b, c, d, e, g)


class P:
    pass


p = P()
p.f0 = lambda: ("P.f0",)
p.f1 = lambda a: ("P.f1", a)
p.f2 = lambda a, b: ("P.f2", a, b)
p.f5 = lambda a, b, c, d, e: ("P.f5", a, b, c, d, e)
p.f6 = lambda a, b, c, d, e, g: ("P.f6", a, b, c, d, e, g)


def site(objs):
    out = []
    for i, o in enumerate(objs):
        out.append((o.f0(), o.f1(i), o.f2(i, -i), o.f5(1, 2, 3, 4, i), o.f6(1, 2, 3, 4, 5, i)))
    return out


m = M()
for row in site([m, m, m, m, p, m, p, p, m]):
    print(row)


def a0():
    return 0


def a1(x):
    return x


def a3(x, y, z):
    return x - y * z


def a4(x, y, z, w):
    return (x, y, z, w)


def plain(n):
    return [(a0(), a1(i), a3(i, 2, 3), a4(i, i + 1, i + 2, i + 3)) for i in range(n)]


print(plain(6))
