# Syntax error: try no except (message and position checked against CPython 3.11; recorded with --ember).
try:
    pass
print(1)
