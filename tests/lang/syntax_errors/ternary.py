# Syntax error: ternary (message and position checked against CPython 3.11; recorded with --ember).
a = 1 if 2
