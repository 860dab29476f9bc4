def f(a: int = , b): pass
