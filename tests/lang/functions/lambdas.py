# lambda: arguments of every kind, closures, conditional bodies, names.
sq = lambda x: x * x
print(sq(7), (lambda: "none")(), (lambda *a, **k: (a, k))(1, z=2))
print((lambda a, b=10, *, c=1: a + b + c)(1, c=100))
print(sorted(["bb", "a", "ccc"], key=lambda s: -len(s)))
print(sq.__name__, sq.__qualname__)
compose = lambda f, g: lambda x: f(g(x))
print(compose(str, sq)(5) + "!")
sign = lambda n: "pos" if n > 0 else ("neg" if n < 0 else "zero")
print([sign(n) for n in (3, -1, 0)])
