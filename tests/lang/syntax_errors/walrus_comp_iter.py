# Syntax error: an assignment expression in a comprehension's iterable (symbol table; checked against CPython 3.11).
print([a for a in (b := [1, 2])])
