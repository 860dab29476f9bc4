def f(a, /, *, /): pass
