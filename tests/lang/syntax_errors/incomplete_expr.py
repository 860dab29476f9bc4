# Syntax error: incomplete expr (message and position checked against CPython 3.11; recorded with --ember).
x = 1 +
