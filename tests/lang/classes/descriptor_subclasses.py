# Builtin descriptor types are acceptable bases as in CPython: abc.abstractclassmethod subclasses
# classmethod (numbers.py needs it), and so do subclasses of staticmethod and property.
import abc, numbers

class A(abc.ABC):
    @abc.abstractclassmethod
    def f(cls): return 1
    @abc.abstractstaticmethod
    def g(): return 2
    @abc.abstractproperty
    def p(self): return 3
print(sorted(A.__abstractmethods__))
try:
    A()
except TypeError as e:
    print("TypeError", e)

class C(classmethod):
    def __init__(self, f):
        super().__init__(f)
        self.extra = 5
class D:
    @C
    def m(cls): return cls.__name__
class DD(D): pass
print(D.m(), DD.m(), DD().m(), D.__dict__['m'].extra, [k.__name__ for k in type(D.__dict__['m']).__mro__])
print(isinstance(D.__dict__['m'], classmethod), D.__dict__['m'].__func__.__name__)

class P(property):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.tag = "P"
class E:
    @P
    def x(self): return 42
    @x.setter
    def x(self, v): print('set', v)
e = E(); print(e.x); e.x = 3
print(type(E.__dict__['x']).__name__, E.__dict__['x'].tag, E.__dict__['x'].fset is not None)
try:
    del e.x
except AttributeError as ex:
    print("AttributeError", ex)

class S(staticmethod):
    def __repr__(self): return "<S>"
class F:
    @S
    def s(a): return a * 2
print(F.s(4), F().s(5), repr(F.__dict__['s']))

print(numbers.Integral, issubclass(int, numbers.Integral), isinstance(2.0, numbers.Real))
print(isinstance(1j, numbers.Complex), isinstance(1, numbers.Rational), issubclass(float, numbers.Rational))
print(numbers.Integral.__abstractmethods__ >= {'__int__'})

for base in (bool, memoryview, range, slice, type(None), type(len), type(lambda: 0)):
    try:
        class X(base): pass
        print(base.__name__, 'ok')
    except TypeError as ex:
        print(base.__name__, ex)
