# Positional-only parameters (PEP 570): binding, defaults, **kwargs sharing a name, errors.
def f(a, b, /, c, *, d=4):
    return a, b, c, d


print(f(1, 2, 3), f(1, 2, c=3, d=5))
for call in (lambda: f(a=1, b=2, c=3), lambda: f(1, b=2, c=3), lambda: f(1, 2),
             lambda: f(1, 2, 3, 4), lambda: f(1, 2, 3, e=1)):
    try:
        call()
    except TypeError as e:
        print(type(e).__name__, e)


def g(a, b=2, /, c=3):
    return a, b, c


print(g(1), g(1, 5), g(1, c=9), g.__defaults__)


def kw_share(a, /, **kw):
    return a, kw


print(kw_share(1, a=2))


def only(a, /):
    return a


print(only(7), only.__code__.co_posonlyargcount, only.__code__.co_argcount)
lam = lambda x, /, y: x + y
print(lam(1, 2), lam(1, y=3))
try:
    lam(x=1, y=2)
except TypeError as e:
    print(e)


class M:
    def meth(self, v, /):
        return v


print(M().meth(3))
try:
    M().meth(v=3)
except TypeError as e:
    print(e)
