# __del__ finalizers (Ember runs them when the collector finds the object unreachable, at the
# next safe point; gc.collect() runs them before it returns, exit runs those still alive).
import gc, weakref

class D:
    def __init__(self, name):
        self.name = name
    def __del__(self):
        print("del", self.name)

d = D("a")
del d
gc.collect()
print("after a")

# a cycle of finalizable objects is finalized (PEP 442)
x = D("x"); y = D("y")
x.other = y; y.other = x
del x, y
gc.collect()
print("after cycle")

# resurrection: __del__ runs once only
saved = []
class R:
    def __del__(self):
        print("R.__del__")
        saved.append(self)
r = R()
del r
gc.collect()
print("resurrected", len(saved))
saved.clear()
gc.collect()
print("cleared")

# exceptions in __del__ are reported through sys.unraisablehook, not raised
import sys
def hook(u):
    print("unraisable:", u.exc_type.__name__, u.exc_value, u.err_msg, u.object.__qualname__)
sys.unraisablehook = hook
class E:
    def __del__(self):
        raise ValueError("boom")
e = E()
del e
gc.collect()
print("after E")

# subclass inherits __del__, super().__del__ chains
class Base:
    def __del__(self):
        print("Base.__del__", type(self).__name__)
class Sub(Base):
    def __del__(self):
        print("Sub.__del__")
        super().__del__()
s = Sub()
del s
gc.collect()

# __del__ assigned after class creation
class Late:
    pass
Late.__del__ = lambda self: print("Late.__del__")
l = Late()
del l
gc.collect()

# weakref: dead after the finalizer ran and the object is gone
class W:
    def __del__(self):
        print("W.__del__, ref alive:", wr() is self)
w = W()
wr = weakref.ref(w)
del w
gc.collect()
gc.collect()
print("ref now", wr())

# a __del__ that appends to a list while many objects die (safe points)
log = []
class A:
    def __del__(self):
        log.append(1)
for i in range(2000):
    A()
gc.collect()
print("all finalized", len(log) == 2000)

# instances of int/list/dict subclasses
class L(list):
    def __del__(self):
        print("L.__del__", list(self))
lst = L([1, 2])
del lst
gc.collect()

print("end of script")
