# `local.name(...)`: the LOAD_FAST before a specialised LOAD_METHOD becomes
# LOAD_FAST_METHOD_CACHED (opcodes.def note [13]); warmed in a loop, then made wrong: the local
# unbound (UnboundLocalError from its own line), the method shadowed by an instance attribute
# and replaced on the class, other types and a non-object at the same site, a native method.
import sys


class A:
    def f(self, i):
        return i + 1


class B(A):
    def f(self, i):
        return -i


def calls(objs, n, hook=None):
    out = []
    for i in range(n):
        o = objs[i % len(objs)]
        if hook:
            hook(i, o)
        try:
            out.append(o.f(i))
        except Exception as e:
            out.append("%s: %s (line %d)" % (type(e).__name__, e, sys.exc_info()[2].tb_lineno))
    return out


def h1(i, o):
    if i == 20:
        o.f = lambda i: "shadow"
    if i == 23:
        del o.f
    if i == 26:
        A.f = lambda self, i: i * 100
print(calls([A()], 30, h1)[18:30])
print(calls([A(), B(), 5, None], 12))


def unbound(n):
    out = []
    for i in range(n):
        if i < 10:
            o = [i]
        elif i == 10:
            del o
        try:
            out.append(o.count(i))
        except UnboundLocalError:
            out.append("UnboundLocalError line %d" % sys.exc_info()[2].tb_lineno)
    return out
print(unbound(13))
