# Syntax error: tab indent (message and position checked against CPython 3.11; recorded with --ember).
x = 1
	if x:
