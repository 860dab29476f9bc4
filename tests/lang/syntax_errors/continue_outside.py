# Syntax error: continue outside (message and position checked against CPython 3.11; recorded with --ember).
lambda x: (yield)
continue
