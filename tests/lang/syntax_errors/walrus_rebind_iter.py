# Syntax error: a walrus may not rebind the comprehension's own iteration variable (checked against CPython 3.11).
def f():
    return [(i := i) for i in range(3)]
