# The TypeErrors CPython raises for bad calls, with its messages.
def f(a, b, c=3): pass
def g(a, *, k): pass
def h(x, /): pass
five, text = 5, "str"
class C:
    def m(self, a): pass
tests = [
    lambda: f(),
    lambda: f(1),
    lambda: f(1, 2, 3, 4),
    lambda: f(1, 2, d=5),
    lambda: f(1, 2, a=1),
    lambda: g(1),
    lambda: g(1, 2),
    lambda: g(1, k=2, j=3),
    lambda: h(x=1),
    lambda: C().m(),
    lambda: C().m(1, 2),
    lambda: C.m(),
    lambda: (lambda: 0)(1),
    lambda: f(*5),
    lambda: f(**[1]),
    lambda: f(1, **{"b": 1}, **{"b": 2}),
    lambda: f(1, **{1: 2}),
    lambda: five(),
    lambda: text(),
    lambda: len(),
    lambda: len(1, 2),
    lambda: len(5),
    lambda: abs("x"),
    lambda: int("abc"),
    lambda: f(1, 2, 3, c=3),
]
for t in tests:
    try:
        t()
        print("no error")
    except TypeError as e:
        print("TypeError:", e)
    except ValueError as e:
        print("ValueError:", e)
