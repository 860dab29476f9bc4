import os.path as p, sys
x = 1
def outer(a, b=2, *args, c, d=4, **kw):
    """doc"""
    global x
    y = a + b
    def inner(z):
        nonlocal y
        y += z
        return y + x
    class K(Base, metaclass=M):
        attr = y
        def m(self):
            return super().m() + __class__
        def __priv(self): return self.__x
    for i in range(3):
        yield i
    lam = lambda q, *r, s=1: q + y
    comp = [j * a for j in args if j]
    g = (k for k in kw)
    dc = {k: v for k, v in kw.items()}
    try:
        pass
    except E as err:
        pass
    with open(p) as (f1, f2):
        pass
    del lam
    return inner
