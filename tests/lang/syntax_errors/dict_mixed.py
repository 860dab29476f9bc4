# Syntax error: dict mixed (message and position checked against CPython 3.11; recorded with --ember).
x = {1: 2, 3}
