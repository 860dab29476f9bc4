# Syntax error: unclosed paren (message and position checked against CPython 3.11; recorded with --ember).
x = (1, 2
print(x)
