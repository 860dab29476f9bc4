# Single and multiple inheritance, method resolution, C3 MRO, isinstance/issubclass.
class A:
    def who(self): return "A"
    def hello(self): return "hello from " + self.who()
class B(A):
    def who(self): return "B"
class C(A):
    def who(self): return "C"
    def only_c(self): return "only C"
class D(B, C):
    pass
print(D().hello(), D().only_c())
print([k.__name__ for k in D.__mro__])
print(D.__bases__ == (B, C), issubclass(D, A), issubclass(D, (int, C)), isinstance(D(), B))
class O: pass
class X(O): pass
class Y(O): pass
class Z(O): pass
class K1(X, Y): pass
class K2(Y, Z): pass
class K3(X, Z): pass
class M(K1, K2, K3): pass
print([k.__name__ for k in M.mro()])
try:
    class Bad(X, K1): pass
except TypeError as e:
    print("TypeError:", e)
try:
    class Dup(X, X): pass
except TypeError as e:
    print("TypeError:", e)
print(issubclass(bool, int), issubclass(int, object), isinstance(True, int))
class Base:
    def __init__(self):
        self.base_init = True
class Child(Base):
    pass
print(Child().base_init)
