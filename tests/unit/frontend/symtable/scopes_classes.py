def f(b, a):
    x = 1
    class C:
        x = 2
        y = a
        def g(self): return x + b + __class__
        z = [a for _ in range(3)]
        def __h(self): __y = 1; return __y
    def k():
        def l():
            return a
        return l
    q = lambda: (yield)
    return C
class D:
    def __init__(self, __v):
        self.__v = __v
    @staticmethod
    def s(*, kw): return [kw for kw in kw]
    class E:
        def __f(self): pass
x: int
y: int = 3
def ann(p: int) -> str:
    w: float
    v: float = 2.0
    return p
def dec(f):
    return f
@dec
@dec
def decorated(a, /, b, *, c):
    for a, (b, *c) in []:
        pass
    with a as (b, c), b:
        pass
def closure_param(a, b, c):
    def inner(): return c, a
    return inner
def augm():
    t += 1
    del u
    import m.n
    from q import r as s
    try:
        pass
    except Exception as exc:
        pass
    return
