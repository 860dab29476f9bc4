# global/nonlocal in class bodies and nested functions, interplay with class-level names.
x = 10


class K:
    global x
    x = 20
    y = x


print(x, K.y, 'x' in K.__dict__)


def outer():
    v = 1

    class Inner:
        nonlocal v
        v = 2
        w = v

    return v, Inner.w, 'v' in Inner.__dict__


print(outer())


def counter():
    n = 0

    def inc():
        nonlocal n
        n += 1
        return n

    def get():
        return n

    return inc, get


inc, get = counter()
inc(); inc()
print(get())


def shadow():
    a = 'outer'

    class C:
        a = 'class'

        def m(self):
            return a

    return C().m(), C.a


print(shadow())


def deep():
    z = 0

    def mid():
        def inner():
            nonlocal z
            z += 5
        inner()

    mid()
    return z


print(deep())


def glob_fn():
    global newname
    newname = 'set from function'


glob_fn()
print(newname)


class G:
    global gfunc

    def gfunc():
        return 'global def from class'


print(gfunc(), hasattr(G, 'gfunc'))
