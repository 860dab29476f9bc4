# NotImplemented: returned by binary dunders to let the other operand try; its truthiness.
class A:
    def __add__(self, o):
        print("A.__add__")
        return NotImplemented
    def __eq__(self, o):
        print("A.__eq__")
        return NotImplemented
class B:
    def __radd__(self, o):
        print("B.__radd__")
        return "B handled it"
    def __eq__(self, o):
        print("B.__eq__")
        return NotImplemented
print(A() + B())
print(A() == B())
try:
    A() + A()
except TypeError as e:
    print("TypeError:", e)
print(NotImplemented, repr(NotImplemented), type(NotImplemented).__name__)
print((1).__add__("x"), "x".__mul__("y") if False else None, (1.5).__lt__("s"))
print(int.__add__(2, 3), (3).__radd__(4), [1].__eq__(5))
