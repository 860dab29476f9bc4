def f():
    pass
def g(a, b):
    return a + b
def h(a, b=1, *args, c, d=2, **kwargs):
    return
def i(a, /, b, *, c):
    pass
def j(a=1, /, b=2, *, c=3):
    pass
def k(*, only):
    pass
def l(a, b, /):
    pass
def m(*args, **kwargs):
    return args, kwargs
def n():
    """Docstring."""
    return 1
def o():
    def inner():
        return 1
    return inner
def p():
    yield
    yield 1
    yield 1, 2
    x = yield
    y = yield from other()
    return (yield)
@decorator
def q():
    pass
@dec.attr
@dec.call(1, 2)
@dec[0]
@(lambda f: f)
def r():
    pass
def s(a,
      b,
      c=3,
      ):
    pass
