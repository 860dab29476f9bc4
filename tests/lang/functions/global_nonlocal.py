# global and nonlocal declarations.
g = 0
def set_global():
    global g
    g = 42
set_global()
print(g)
def make_global():
    global fresh
    fresh = "created"
make_global()
print(fresh)
def read_only(): return g + 1
print(read_only())
def outer():
    a = 1
    def mid():
        nonlocal a
        a += 1
        def inner():
            nonlocal a
            a *= 10
        inner()
    mid()
    return a
print(outer())
def shadow():
    g = "local"
    return g
print(shadow(), g)
def unbound_local():
    try:
        print(g)
    except UnboundLocalError as e:
        print("UnboundLocalError:", e)
    g = 1
unbound_local()
class K:
    x = 1
    def m(self):
        return x
x = "global x"
print(K().m())
def del_global():
    global g
    del g
del_global()
print("g" in globals())
