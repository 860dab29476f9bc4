# A return into the caller's POP_TOP (a call statement) or STORE_FAST (`x = call(...)`) does that
# instruction on the return path instead of pushing the value (vm/interp_calls.inc).  Exercised
# from plain frames, generator frames and recursion; a call that raises leaves the target as it
# was; a conditional expression whose second call's STORE_FAST is a jump target; the stored
# values keep their identity; a frame's line seen from the callee and afterwards.
import sys


def ident(v):
    return v


def twice(v):
    r = v + v
    return r


log = []


def note(v):
    log.append(v)
    return v


def boom(v):
    if v == 3:
        raise ValueError("three")
    return v * 10


def caller(n):
    x = None
    out = []
    for i in range(n):
        y = twice(i)
        note(i)
        try:
            x = boom(i)
        except ValueError:
            out.append(("kept", x))
        z = ident(y) if i % 2 else twice(y)
        out.append((y, z, x))
    return out


print(caller(6), log)


def gen(n):
    for i in range(n):
        v = twice(i)
        note(-i)
        yield v


print(list(gen(4)), log[-4:])


def depth(n):
    if n == 0:
        return 0
    d = depth(n - 1)
    return d + 1


print(depth(50))
big = 2 ** 100
obj = object()


def keep():
    a = ident(big)
    b = ident(obj)
    c = twice(big)
    return a is big, b is obj, c == 2 * big


print(keep())


def lines():
    seen = []

    def where():
        return sys._getframe(1).f_lineno
    a = where()
    seen.append(a)
    where()
    seen.append(sys._getframe().f_lineno)
    return seen


print(lines())


def unbound_then_stored():
    out = []
    for i in range(3):
        try:
            out.append(x)
        except UnboundLocalError:
            out.append("unbound")
        x = ident(i)
        del x
    return out


print(unbound_then_stored())
