# Syntax error: missing colon (message and position checked against CPython 3.11; recorded with --ember).
if True
    pass
