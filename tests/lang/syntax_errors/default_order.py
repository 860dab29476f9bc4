# Syntax error: default order (message and position checked against CPython 3.11; recorded with --ember).
def f(x=1, y): pass
