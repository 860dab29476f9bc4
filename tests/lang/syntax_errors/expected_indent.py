# Syntax error: expected indent (message and position checked against CPython 3.11; recorded with --ember).
def f():
return 1
