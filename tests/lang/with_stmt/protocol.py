# The context-manager protocol: __enter__ result, __exit__ arguments, order of calls.
class CM:
    def __init__(self, name, suppress=False):
        self.name = name
        self.suppress = suppress
    def __enter__(self):
        print("enter", self.name)
        return self.name.upper()
    def __exit__(self, typ, val, tb):
        print("exit", self.name, typ.__name__ if typ else None, val, tb is not None)
        return self.suppress
with CM("a") as x:
    print("body", x)
with CM("a") as x, CM("b") as y:
    print("body", x, y)
with CM("outer"), CM("inner"):
    print("two without as")
with CM("s", suppress=True):
    raise ValueError("swallowed")
print("after suppressed")
try:
    with CM("n"):
        raise KeyError("propagates")
except KeyError as e:
    print("caught", repr(e))
try:
    with CM("first", suppress=True), CM("second"):
        raise RuntimeError("inner exits first")
except RuntimeError:
    print("not reached")
print("suppressed by the outer manager")
def f():
    with CM("ret"):
        return "returned value"
print(f())
with CM("tuple") as (a):
    print(a)
class Pair:
    def __enter__(self): return (1, 2)
    def __exit__(self, *a): pass
with Pair() as (p, q):
    print(p, q)
