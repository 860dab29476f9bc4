def f(*args, *, a): pass
