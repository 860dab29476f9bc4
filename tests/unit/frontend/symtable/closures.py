def counter():
    count = 0
    def inc(step=1):
        nonlocal count
        count += step
        return count
    def get():
        return count
    return inc, get

def deep(a):
    def l1(b):
        def l2(c):
            def l3():
                return a + b + c + d
            return l3
        return l2
    d = 4
    return l1

def shadow(x):
    def inner(x):
        return x
    return inner(x)

def late_binding():
    fs = [lambda: i for i in range(3)]
    gs = [lambda i=i: i for i in range(3)]
    return fs, gs

def param_cells(first, second, *rest, kw, **opts):
    def use():
        return second, opts, first, kw, rest
    return use

def cell_order(zeta, alpha):
    mid = 1
    beta = 2
    def f():
        return beta, alpha, zeta, mid
    return f
