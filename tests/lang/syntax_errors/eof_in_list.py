# Syntax error: eof in list (message and position checked against CPython 3.11; recorded with --ember).
x = [1, 2,
