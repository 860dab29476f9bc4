# staticmethod, classmethod, property (getter/setter/deleter) and custom descriptors.
class Temp:
    scale = "C"
    def __init__(self, c):
        self._c = c
    @property
    def c(self):
        "Celsius."
        return self._c
    @c.setter
    def c(self, v):
        print("set c", v)
        self._c = v
    @c.deleter
    def c(self):
        print("del c")
        del self._c
    @property
    def f(self):
        return self._c * 9 / 5 + 32
    @staticmethod
    def unit():
        return "degrees"
    @classmethod
    def zero(cls):
        return cls(0)
t = Temp(100)
print(t.c, t.f, Temp.unit(), t.unit(), Temp.zero().c, type(Temp.zero()).__name__)
t.c = 37
print(t.f)
del t.c
print(hasattr(t, "_c"))
try:
    t.f = 1
except AttributeError as e:
    print("AttributeError:", e)
print(Temp.c.__doc__, type(Temp.c).__name__, type(Temp.__dict__["unit"]).__name__)
class Sub(Temp):
    pass
print(Sub.zero().__class__.__name__)
class Typed:
    def __set_name__(self, owner, name):
        self.name = "_" + name
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.name, "unset")
    def __set__(self, obj, value):
        if not isinstance(value, int):
            raise TypeError("need int")
        setattr(obj, self.name, value)
class Rec:
    size = Typed()
r = Rec()
print(r.size)
r.size = 5
print(r.size, r.__dict__)
try:
    r.size = "big"
except TypeError as e:
    print(e)
print(type(Rec.size).__name__)
p = property(lambda self: 42)
class Q:
    answer = p
print(Q().answer)
