# Syntax error: for indent (message and position checked against CPython 3.11; recorded with --ember).
for x in 1, 2:
pass
