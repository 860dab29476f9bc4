# object's and type's protocol methods the stdlib leans on: __getstate__ (3.11 rules with slots),
# __abstractmethods__ making a class abstract (the instantiation TypeError, sorted names),
# __flags__ bits inspect/copyreg read, class __annotations__, __subclasshook__, object's
# ordering methods returning NotImplemented, __doc__ on every type, BaseException pickling
# helpers.
class P:
    def __init__(self):
        self.a = 1
print(P().__getstate__(), object().__getstate__())
class S:
    __slots__ = ("x", "y")
s = S()
s.x = 1
print(s.__getstate__())
class SD:
    __slots__ = ("x", "__dict__")
sd = SD()
sd.x = 2
sd.z = 3
print(sd.__getstate__())

class Abstract:
    pass
Abstract.__abstractmethods__ = frozenset({"g", "f"})
try:
    Abstract()
except TypeError as e:
    print("TypeError:", e)
Abstract.__abstractmethods__ = frozenset({"only"})
try:
    Abstract()
except TypeError as e:
    print("TypeError:", e)
Abstract.__abstractmethods__ = frozenset()
print(type(Abstract()).__name__, Abstract.__abstractmethods__)
del Abstract.__abstractmethods__
for probe in (lambda: Abstract.__abstractmethods__, lambda: object.__abstractmethods__, lambda: type.__abstractmethods__):
    try:
        probe()
    except AttributeError as e:
        print("AttributeError:", e)
class WithNew:
    def __new__(cls):
        return super().__new__(cls)
WithNew.__abstractmethods__ = {"m"}
try:
    WithNew()
except TypeError as e:
    print("TypeError:", e)
print(bool(Abstract.__flags__ & (1 << 9)), bool(int.__flags__ & (1 << 9)), bool(list.__flags__ & (1 << 25)),
      bool(dict.__flags__ & (1 << 29)), bool(type.__flags__ & (1 << 31)), bool(ValueError.__flags__ & (1 << 30)))
WithNew.__abstractmethods__ = {"m"}
print(bool(WithNew.__flags__ & (1 << 20)), bool(P.__flags__ & (1 << 20)))

class A:
    pass
class B:
    x: int
    y: "str" = "s"
print(A.__annotations__, B.__annotations__, "__annotations__" in A.__dict__)
try:
    int.__annotations__
except AttributeError as e:
    print("AttributeError:", e)
print(object.__subclasshook__(), A.__subclasshook__(), object.__lt__(A(), A()), object.__ge__(1, 2))
try:
    A() < A()
except TypeError as e:
    print("TypeError:", e)
print(None.__doc__, type(None).__doc__, A.__doc__, object.__doc__.splitlines()[0])
print(ValueError("x", 1).__reduce__(), KeyError("k").__reduce_ex__(2))
e = ValueError("m")
e.extra = 5
print(e.__reduce__())
e2 = ValueError()
e2.__setstate__({"note": "n"})
print(e2.note)
print(isinstance(object().__sizeof__(), int), (5).__sizeof__() > 0)
