# Syntax error: assign true (message and position checked against CPython 3.11; recorded with --ember).
True = 1
