# Syntax error: genexp arg (message and position checked against CPython 3.11; recorded with --ember).
f(x for x in y, 1)
