# Syntax error: unmatched close (message and position checked against CPython 3.11; recorded with --ember).
x = )
