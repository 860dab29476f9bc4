# Every parameter kind: positional, defaults, *args, keyword-only, **kwargs, positional-only.
def f(a, b=2, *args, c, d=4, **kw):
    return (a, b, args, c, d, kw)
print(f(1, c=3))
print(f(1, 5, 6, 7, c=8, e=9))
print(f(*[1, 2, 3], **{"c": 0, "z": 1}))
def g(x, y, /, z): return x, y, z
print(g(1, 2, z=3), g(1, 2, 3))
def h(*, only): return only
print(h(only="kw"))
def defaults(a, lst=[]):
    lst.append(a)
    return lst
print(defaults(1), defaults(2))
def k(**kwargs): return sorted(kwargs.items())
print(k(b=2, a=1))
def v(*args): return args
print(v(), v(1), v(*"ab", *[3]))
print(f.__defaults__, f.__kwdefaults__, f.__code__.co_argcount, f.__code__.co_kwonlyargcount)
print(f.__code__.co_varnames, f.__name__, f.__qualname__)
def ann(a: int, b: "str" = "x") -> list: return [a, b]
print(ann(1), ann.__annotations__)
