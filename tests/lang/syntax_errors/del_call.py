# Syntax error: del call (message and position checked against CPython 3.11; recorded with --ember).
del f()
