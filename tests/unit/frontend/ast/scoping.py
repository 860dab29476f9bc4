counter = 0
def inc():
    global counter
    counter += 1
def outer():
    x = 1
    def inner():
        nonlocal x
        x += 1
        return x
    return inner
def multi():
    global a, b, c
    a = b = c = 1
def deletions():
    del x
    del x, y
    del x.attr
    del x[0]
    del x[1:2]
    del (a, b)
    del [a, b]
    del (x)
    del a.b.c[d]
