# X | Y type unions (types.UnionType) in isinstance/issubclass, their repr, args and equality.
u = int | str
print(u, type(u).__name__, u.__args__, int | None, None | float, int | str | int)
print(isinstance(3, u), isinstance("s", u), isinstance(2.5, u), isinstance(None, int | None))
print(issubclass(bool, int | str), issubclass(float, int | str), u == (str | int), hash(u) == hash(str | int))
class A: pass
class B(A): pass
print(A | B, isinstance(B(), A | None), isinstance(3, (A, int | str)))
try:
    int | 3
except TypeError as e:
    print("TypeError:", e)
try:
    isinstance(3, 5)
except TypeError as e:
    print("TypeError:", e)
