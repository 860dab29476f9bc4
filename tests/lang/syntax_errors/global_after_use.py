# Syntax error: global after use (message and position checked against CPython 3.11; recorded with --ember).
x = 1
def f():
    print(x)
    global x
