def f(**kw):
    g(a=1, **kw, a=2)
