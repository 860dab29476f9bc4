# Closures: captured variables, late binding, nonlocal, cells shared between closures.
def counter():
    n = 0
    def inc():
        nonlocal n
        n += 1
        return n
    def get(): return n
    return inc, get
inc, get = counter()
inc(); inc()
print(get())
fs = [lambda: i for i in range(3)]
print([f() for f in fs])
fs = [lambda i=i: i for i in range(3)]
print([f() for f in fs])
def outer():
    x = "outer"
    def mid():
        def inner():
            return x
        return inner
    return mid()()
print(outer())
def make_adders():
    return [(lambda n: lambda x: x + n)(k) for k in range(3)]
print([a(10) for a in make_adders()])
def f():
    v = 1
    def g():
        return v
    v = 2
    return g()
print(f())
print(counter.__code__.co_cellvars, inc.__code__.co_freevars, inc.__closure__ is not None)
def unbound():
    def g(): return w
    try:
        g()
    except NameError as e:
        print("NameError:", e)
    w = 1
unbound()
