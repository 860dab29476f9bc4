# Syntax error: nonlocal module (message and position checked against CPython 3.11; recorded with --ember).
def f():
    nonlocal x
