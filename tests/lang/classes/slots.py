# __slots__: assigning a name no class of the MRO lists fails as in CPython; a subclass without
# __slots__, or "__dict__" in the list, lifts the restriction; the names are checked at class creation.
class S:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1


class T(S):
    __slots__ = "c"


class U(S):
    pass


class D:
    __slots__ = ("x", "__dict__")


s = S()
s.b = 2
print(s.a, s.b)
try:
    s.z = 3
except AttributeError as e:
    print("AttributeError", e)
try:
    print(s.missing)
except AttributeError as e:
    print("AttributeError", e)
t = T()
t.c = 5
t.a = 6
print(t.a, t.c)
try:
    t.d = 1
except AttributeError as e:
    print("AttributeError", e)
u = U()
u.anything = 7
print(u.anything)
d = D()
d.y = 8
print(d.y)
try:
    class Bad:
        __slots__ = ("v",)
        v = 1
except ValueError as e:
    print("ValueError", e)
try:
    class Bad2:
        __slots__ = (1,)
except TypeError as e:
    print("TypeError", e)
try:
    class Bad3:
        __slots__ = ("not valid",)
except TypeError as e:
    print("TypeError", e)


class K:
    __slots__ = ()
    kind = "k"


k = K()
try:
    k.kind = "j"
except AttributeError as e:
    print("AttributeError", e)
try:
    del s.a
    print(s.a)
except AttributeError as e:
    print("AttributeError", e)
