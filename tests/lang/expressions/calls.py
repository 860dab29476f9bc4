# Calls with keyword arguments, *args and **kwargs unpacking, evaluation order.
def f(*args, **kwargs):
    return args, kwargs
def show(x):
    print("arg", x)
    return x
print(f(show(1), show(2), k=show(3)))
print(f(*[1, 2], *(3,), 4, **{"a": 1}, b=2, **{"c": 3}))
print(f(*range(3), *"xy"), f(**{}), f(*[]))
def g(a, b, c=0):
    return a, b, c
args = (1,)
kwargs = {"c": 3}
print(g(*args, 2, **kwargs), g(b=2, a=1), g(1, *[2, 3]))
print(g(**dict(a=1, b=2)), g(*"ab"))
class Caller:
    def method(self, *a, **k):
        return a, k
c = Caller()
print(c.method(1, x=2), Caller.method(c, *[1], **{"y": 2}))
print(getattr(c, "method")(5), (lambda *a: a)(*[1, 2]))
m = c.method
print(m(3))
def kwonly(*, a, b=2):
    return a + b
print(kwonly(**{"a": 1}), kwonly(b=5, a=1))
