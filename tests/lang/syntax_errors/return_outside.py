# Syntax error: return outside (message and position checked against CPython 3.11; recorded with --ember).
return 5
