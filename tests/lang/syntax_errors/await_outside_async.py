# Syntax error: await in a plain function (the compiler's check; checked against CPython 3.11).
def f():
    return await g()
