def f(*, **kw): pass
