def f(a, (b, c)): pass
