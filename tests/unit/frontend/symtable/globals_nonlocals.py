a = 1
def f():
    global a
    a = 2
    def g():
        return a
    return g

def h():
    global b
    def i():
        global c
        c = 3
        return b
    return i

def j():
    x = 1
    def k():
        nonlocal x
        x = 2
        def l():
            nonlocal x
            return x
        return l
    return k

def m():
    y = 1
    class N:
        global y
        y = 2
    return y

def o():
    z = 1
    def p():
        global z
        return z
    def q():
        return z
    return p, q
