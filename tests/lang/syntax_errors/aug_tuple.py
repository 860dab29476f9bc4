# Syntax error: aug tuple (message and position checked against CPython 3.11; recorded with --ember).
a, b += 1
