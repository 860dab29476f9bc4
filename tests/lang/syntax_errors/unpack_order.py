# Syntax error: unpack order (message and position checked against CPython 3.11; recorded with --ember).
f(**x, *y)
