def f(*,): pass
