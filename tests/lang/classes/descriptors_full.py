# The descriptor protocol in full: data/non-data precedence, a __set__-only descriptor, descriptors
# on metaclasses, __getattribute__ with __getattr__ fallback, property subclasses and property /
# classmethod / staticmethod / function __get__ called directly, setters and deleters,
# __set_name__ at class creation only, and builtin generics (list[int]) as types.GenericAlias.
log = []
class Data:
    def __set_name__(self, owner, name): self.name = name
    def __get__(self, obj, objtype=None):
        log.append(("get", self.name, obj is None, objtype.__name__ if objtype else None))
        return self if obj is None else obj.__dict__.get("_" + self.name, "default")
    def __set__(self, obj, value):
        log.append(("set", self.name, value))
        obj.__dict__["_" + self.name] = value
    def __delete__(self, obj):
        log.append(("delete", self.name))
        del obj.__dict__["_" + self.name]
class NonData:
    def __get__(self, obj, objtype=None):
        return "nondata"
class SetOnly:
    def __set__(self, obj, value):
        obj.__dict__["so"] = value * 2
class C:
    d = Data()
    n = NonData()
    so = SetOnly()
c = C()
print(c.d); c.d = 5; print(c.d); del c.d; print(c.d)
c.__dict__["n"] = "instance wins over non-data"; print(c.n)
c.__dict__["d"] = "instance loses to data"; print(c.d)
print(type(C.__dict__["so"]).__name__, c.so if False else None)
c.so = 21; print(c.__dict__["so"], c.so)
print(C.d is C.__dict__["d"], C.n)
for e in log: print(e)

# descriptors on metaclasses
class MetaDesc:
    def __get__(self, obj, objtype=None): return f"meta-level for {obj.__name__ if obj else None}"
class M(type):
    attr = MetaDesc()
    @property
    def prop(cls): return "meta property of " + cls.__name__
class K(metaclass=M):
    pass
print(K.attr, K.prop)
class K2(metaclass=M):
    attr = "class attr shadows non-data meta descriptor"
    prop = "class attr loses to meta data descriptor"
print(K2.attr, K2.prop)

# __getattribute__ and __getattr__
class Tracing:
    def __init__(self): self.x = 1
    def __getattribute__(self, name):
        if name == "secret": raise AttributeError("no secrets")
        if name.startswith("up_"): return object.__getattribute__(self, name[3:]) * 100
        return super().__getattribute__(name)
    def __getattr__(self, name):
        return f"fallback:{name}"
t = Tracing()
print(t.x, t.up_x, t.secret, t.missing, getattr(t, "other"), hasattr(t, "anything"))
class Strict:
    def __getattribute__(self, name):
        raise KeyError(name)
try:
    Strict().foo
except KeyError as e:
    print("KeyError", e)

# property subclass, classmethod/staticmethod descriptors, __get__ directly
class cached(property):
    pass
class P:
    @cached
    def v(self): return 42
    @classmethod
    def cm(cls): return cls.__name__
    @staticmethod
    def sm(): return "static"
p = P()
print(p.v, P.cm(), p.cm(), P.sm(), p.sm(), type(P.__dict__["cm"]).__name__)
print(P.__dict__["cm"].__get__(None, P)(), P.__dict__["sm"].__get__(None, P)(), P.__dict__["v"].__get__(p, P))
f = lambda self: ("bound", self)
print(f.__get__(p, P)()[0], f.__get__(None, P) is f)
try:
    p.v = 1
except AttributeError as e:
    print("AttributeError", e)
class WithSetter:
    def __init__(self): self._x = 0
    @property
    def x(self): return self._x
    @x.setter
    def x(self, v): self._x = v * 10
    @x.deleter
    def x(self): self._x = None
w = WithSetter(); w.x = 3; print(w.x); del w.x; print(w.x)
print(WithSetter.x.fget.__name__, WithSetter.x.__doc__)

# __set_name__ through type() and late assignment does not call it
class Late:
    pass
dd = Data()
Late.dd = dd
print(hasattr(dd, "name"))
T = type("T", (), {"q": Data()})
print(T.__dict__["q"].name)

# __class_getitem__ on builtins and generic aliases
print(list[int], dict[str, list[int]], tuple[int, ...])
print(type(list[int]).__name__, list[int].__origin__, list[int].__args__)
