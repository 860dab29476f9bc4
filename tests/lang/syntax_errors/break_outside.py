# Syntax error: break outside (message and position checked against CPython 3.11; recorded with --ember).
break
