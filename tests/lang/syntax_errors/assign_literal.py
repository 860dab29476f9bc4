# Syntax error: assign literal (message and position checked against CPython 3.11; recorded with --ember).
1 = x
