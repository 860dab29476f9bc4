# Syntax error: dup arg (message and position checked against CPython 3.11; recorded with --ember).
def f(a, a): pass
