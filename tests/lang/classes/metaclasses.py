# Metaclasses in full: __prepare__, metaclass __new__/__init__/__call__, class keywords to
# __init_subclass__, __set_name__ (and its RuntimeError), __class_getitem__, __instancecheck__ /
# __subclasscheck__ (not consulted by except), type(name, bases, ns, **kw), metaclass conflicts,
# function metaclasses, metaclass __setattr__/__getattr__/__delattr__, object.__new__ argument rules.
log = []
class Meta(type):
    @classmethod
    def __prepare__(mcls, name, bases, **kw):
        log.append(("prepare", mcls.__name__, name, kw))
        return {"injected": 42}
    def __new__(mcls, name, bases, ns, **kw):
        log.append(("new", name, sorted(k for k in ns if not k.startswith("__")), kw))
        cls = super().__new__(mcls, name, bases, ns)
        cls.made_by = mcls.__name__
        return cls
    def __init__(cls, name, bases, ns, **kw):
        log.append(("init", name, kw))
        super().__init__(name, bases, ns)
    def __call__(cls, *args, **kw):
        log.append(("call", cls.__name__, args))
        obj = super().__call__(*args, **kw)
        obj.via_meta = True
        return obj
    def __repr__(cls):
        return f"<Meta class {cls.__name__}>"
    @property
    def shout(cls):
        return cls.__name__.upper()

class A(metaclass=Meta, flavour="x"):
    def __init_subclass__(cls, **kw):
        log.append(("init_subclass", cls.__name__, kw))
    def __init__(self, v):
        self.v = v
    def method(self):
        return self.injected

class B(A, flavour="y"):
    pass

a = A(1)
b = B(2)
for entry in log:
    print(entry)
print(A, B, type(A), type(B), A.made_by, B.made_by, A.shout, B.shout)
print(a.v, a.via_meta, b.method(), isinstance(b, A), A.injected)

# __init_subclass__ with kwargs and defaults
class Plugin:
    registry = {}
    def __init_subclass__(cls, /, key=None, **kw):
        super().__init_subclass__(**kw)
        cls.key = key
        Plugin.registry[key] = cls.__name__
class P1(Plugin, key="one"): pass
class P2(Plugin): pass
print(Plugin.registry, P1.key, P2.key)
try:
    class P3(Plugin, bogus=1): pass
except TypeError as e:
    print("TypeError:", e)

# __set_name__
class Field:
    def __set_name__(self, owner, name):
        self.owner, self.name = owner.__name__, name
    def __get__(self, obj, objtype=None):
        return f"field {self.name} of {self.owner}" if obj is None else obj.__dict__.get(self.name, "unset")
class Rec:
    x = Field()
    y = Field()
print(Rec.x, Rec().y)
class Bad:
    def __set_name__(self, owner, name):
        raise ValueError("no")
try:
    class C:
        b = Bad()
except RuntimeError as e:
    print("RuntimeError:", e, "| cause:", repr(e.__cause__))

# __class_getitem__
class G:
    def __class_getitem__(cls, item):
        return f"{cls.__name__}[{item!r}]"
print(G[int], G["x", 1])

# __instancecheck__ / __subclasscheck__
class Duck(type):
    def __instancecheck__(cls, inst):
        return hasattr(inst, "quack")
    def __subclasscheck__(cls, sub):
        return hasattr(sub, "quack")
class Quacker(metaclass=Duck): pass
class Q:
    def quack(self): pass
print(isinstance(Q(), Quacker), isinstance(3, Quacker), issubclass(Q, Quacker), issubclass(int, Quacker))
print(isinstance(Q(), (int, Quacker)), issubclass(Q, (int, Quacker)))
class ExcMeta(type):
    def __instancecheck__(cls, inst):
        return True
    def __subclasscheck__(cls, sub):
        return True
class AnyError(Exception, metaclass=ExcMeta): pass
print(isinstance(ValueError(), AnyError), issubclass(KeyError, AnyError))
try:
    raise ValueError("x")
except AnyError:
    print("caught as AnyError")
except ValueError:
    print("caught ValueError (exception matching ignores __subclasscheck__)")

# type() with 3 args and kwargs; metaclass conflict; __prepare__ must return mapping
T = type("T", (A,), {"z": 1}, flavour="dyn")
print(T, type(T), T.z, T.__module__, T.__qualname__)
class M1(type): pass
class M2(type): pass
class X1(metaclass=M1): pass
class X2(metaclass=M2): pass
try:
    class X3(X1, X2): pass
except TypeError as e:
    print("TypeError:", e)
class BadPrep(type):
    @classmethod
    def __prepare__(m, n, b): return 5
try:
    class Y(metaclass=BadPrep): pass
except TypeError as e:
    print("TypeError:", e)

# metaclass that is a plain function
def func_meta(name, bases, ns, **kw):
    ns["tag"] = kw.get("tag")
    return type(name, bases, ns)
class FM(metaclass=func_meta, tag="t"):
    pass
print(FM, FM.tag, type(FM))

# metaclass __setattr__ and __getattr__
class Guard(type):
    def __setattr__(cls, name, value):
        if name == "frozen":
            raise AttributeError("cannot reassign frozen")
        super().__setattr__(name, value)
    def __getattr__(cls, name):
        if name.startswith("dyn_"):
            return name[4:]
        raise AttributeError(name)
    def __delattr__(cls, name):
        raise AttributeError(f"cannot delete {name}")
class GG(metaclass=Guard):
    frozen = 1
GG.other = 2
print(GG.other, GG.dyn_hello)
for stmt in ("GG.frozen = 3", "del GG.other", "GG.missing"):
    try:
        exec_ = {"GG.frozen = 3": lambda: setattr(GG, "frozen", 3), "del GG.other": lambda: delattr(GG, "other"), "GG.missing": lambda: GG.missing}[stmt]
        exec_()
    except AttributeError as e:
        print("AttributeError:", e)

# object.__new__ argument rules
class NoInit: pass
try:
    NoInit(1)
except TypeError as e:
    print("TypeError:", e)
class WithNew:
    def __new__(cls, *a):
        return super().__new__(cls, *a)
try:
    WithNew(1)
except TypeError as e:
    print("TypeError:", e)
class WithInit:
    def __init__(self, *a):
        super().__init__(*a)
try:
    WithInit(1)
except TypeError as e:
    print("TypeError:", e)

# __class__ cell and super() in a metaclass-made class
class Base:
    def hello(self): return "base"
class Derived(Base, metaclass=Meta):
    def hello(self): return "derived+" + super().hello()
print(Derived(0).hello() if False else Derived.__mro__[1].__name__)
print(Derived.__new__ is object.__new__)
