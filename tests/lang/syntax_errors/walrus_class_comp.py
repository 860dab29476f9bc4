# Syntax error: a comprehension's walrus cannot bind in a class body (checked against CPython 3.11).
class C:
    y = [z := 1 for _ in range(2)]
