# Syntax error: unindent mismatch (message and position checked against CPython 3.11; recorded with --ember).
if True:
        x = 1
    y = 2
