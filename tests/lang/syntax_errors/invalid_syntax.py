# Syntax error: invalid syntax (message and position checked against CPython 3.11; recorded with --ember).
x = 5 6
