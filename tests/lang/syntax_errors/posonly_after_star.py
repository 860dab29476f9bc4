def f(*a, /): pass
