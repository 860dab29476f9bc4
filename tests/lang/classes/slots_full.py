# __slots__ without a __dict__ (member descriptors, vars()/__dict__ errors, __weakref__,
# private-name mangling, layout conflicts, nonempty slots on tuple refused, slots on list
# subclasses, values surviving collections) and class __dict__ as a read-only mappingproxy.
def err(fn):
    try:
        r = fn()
        print("ok:", r)
    except Exception as e:
        print(type(e).__name__ + ":", e)

class A:
    __slots__ = ("a", "b")
    def __init__(self):
        self.a = 1
a = A()
print(a.a, type(A.a).__name__, A.a, A.a.__name__, A.a.__objclass__.__name__)
err(lambda: a.b)
err(lambda: vars(a))
err(lambda: a.__dict__)
err(lambda: setattr(a, "c", 1))
err(lambda: delattr(a, "b"))
a.b = 2
print(a.b); del a.b
err(lambda: a.b)
err(lambda: A.a.__get__(a))
err(lambda: A.a.__get__(5))
err(lambda: a.__weakref__)
import weakref
err(lambda: weakref.ref(a))

class B(A):
    pass
b = B(); b.z = 9
print(vars(b), b.a, sorted(k for k in B.__dict__))
print(sorted(k for k in A.__dict__))

class C(A):
    __slots__ = ("c", "__dict__", "__weakref__")
c = C(); c.q = 2; c.c = 3
print(vars(c), c.c, c.a, c.__weakref__, weakref.ref(c)() is c)

class D:
    __slots__ = ("__private", "x")
    def __init__(self):
        self.__private = "hidden"
    def reveal(self):
        return self.__private
d = D()
print(d.reveal(), sorted(k for k in D.__dict__ if not k.startswith("__")), D.__slots__)

err(lambda: type("E", (), {"__slots__": ("x",), "x": 1}))
class S1: __slots__ = ("s1",)
class S2: __slots__ = ("s2",)
err(lambda: type("S3", (S1, S2), {}))
class Empty: __slots__ = ()
class S4(S1, Empty): pass
print([k.__name__ for k in S4.__mro__])
err(lambda: type("T", (tuple,), {"__slots__": ("x",)}))
class L(list):
    __slots__ = ("tag",)
l = L([1, 2]); l.tag = "t"
print(l, l.tag, len(l))
err(lambda: setattr(l, "other", 1))
class NT(tuple):
    __slots__ = ()
nt = NT((1, 2))
err(lambda: setattr(nt, "x", 1))
err(lambda: vars(nt))
err(lambda: type("F", (), {"__slots__": ["__dict__", "__dict__"]}))
err(lambda: type("G", (B,), {"__slots__": ("__dict__",)}))
err(lambda: type("H", (), {"__slots__": (1,)}))
err(lambda: type("I", (), {"__slots__": ("not an identifier",)}))

# many instances: slot values survive collections
import gc
objs = []
for i in range(2000):
    o = A(); o.b = [i] * 3; objs.append(o)
gc.collect()
print(sum(o.b[2] for o in objs), objs[1999].a)

# class __dict__ is a read-only mappingproxy
print(type(A.__dict__).__name__, "a" in A.__dict__, A.__dict__["__slots__"], len(A.__dict__) > 3)
err(lambda: A.__dict__.__setitem__("x", 1))
def setit(): A.__dict__["x"] = 1
err(setit)
print(repr(type("Z", (), {"k": 1}).__dict__)[:30], type("Z", (), {}).__dict__.get("missing", "dflt"))
MappingProxyType = type(type.__dict__)
mp = MappingProxyType({"a": 1})
print(mp, mp["a"], list(mp), list(mp.items()), mp.copy(), mp | {"b": 2}, len(mp), "a" in mp)
err(lambda: MappingProxyType([1]))
err(lambda: hash(mp))
print([k for k in sorted(object.__dict__) if k != "__doc__"][:5], "__dict__" in object.__dict__, "__dict__" in type.__dict__)
