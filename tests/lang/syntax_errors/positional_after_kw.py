# Syntax error: positional after kw (message and position checked against CPython 3.11; recorded with --ember).
f(a=1, 2)
