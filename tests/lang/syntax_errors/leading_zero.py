# Syntax error: leading zero (message and position checked against CPython 3.11; recorded with --ember).
x = 08
