# Syntax error: unterminated string (message and position checked against CPython 3.11; recorded with --ember).
print("hello)
