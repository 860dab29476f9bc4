# Syntax error: decorator bad (message and position checked against CPython 3.11; recorded with --ember).
@
def f(): pass
