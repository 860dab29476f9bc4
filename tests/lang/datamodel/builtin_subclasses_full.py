# Subclasses of str, bytes, tuple, dict, list, float and int with CPython's __new__ semantics:
# values, attributes, methods returning plain instances, hashing and dict lookup across the
# subclass boundary, overridden __str__/__repr__/__or__, and the TypeErrors of bad __new__ calls.
class Name(str):
    def shout(self):
        return self.upper() + "!"
n = Name("bob")
print(n, repr(n), type(n).__name__, n.shout(), n + "x", type(n + "x").__name__, len(n), n[0], n * 2)
print(n == "bob", "bob" == n, hash(n) == hash("bob"), {n: 1}["bob"], {"bob": 2}[n], n in {"bob"}, "o" in n)
print(type(str(n)).__name__, type(n.strip()).__name__, type(n.upper()).__name__, f"{n}", f"{n!r}", format(n, ">6"))
n.extra = 5
print(n.extra, vars(n), list(n), sorted([Name("b"), "a", Name("c")]), "-".join([n, Name("al")]))
print(getattr(type("X", (), {"bob": 7}), n), isinstance(n, str), issubclass(Name, str))

class Upper(str):
    def __new__(cls, v):
        return super().__new__(cls, v.upper())
    def __str__(self):
        return "U<" + str.__str__(self) + ">"
u = Upper("abc")
print(u, repr(u), str(u), f"{u}", "%s" % u, u.lower(), len(u))

class Tag(bytes):
    pass
t = Tag(b"hi")
print(t, type(t).__name__, t + b"!", t[0], len(t), t == b"hi", hash(t) == hash(b"hi"), list(t), t.decode())
t.meta = 1
print(t.meta, bytes(t), type(bytes(t)).__name__)

class Pt(tuple):
    def __new__(cls, x, y):
        return super().__new__(cls, (x, y))
    @property
    def x(self): return self[0]
p = Pt(1, 2)
print(p, p.x, type(p).__name__, p + (3,), len(p), p == (1, 2), hash(p) == hash((1, 2)))

class Counter(dict):
    def __missing__(self, key):
        return 0
c = Counter(a=1)
print(c["a"], c["zz"], type(c).__name__, c)

class Stack(list):
    def push(self, v): self.append(v)
s = Stack([1])
s.push(2)
print(s, type(s).__name__, s[::-1], type(s[::-1]).__name__, len(s))

class MyFloat(float):
    def __repr__(self): return f"MyFloat({float(self)!r})"
mf = MyFloat("1.5")
print(mf, mf + 1, mf * 2, round(mf), int(mf), f"{mf:.3f}", mf.hex(), MyFloat.fromhex("0x1p1"))

class Flags(int):
    def __or__(self, o): return Flags(int(self) | int(o))
    def __repr__(self): return f"Flags({int(self)})"
f = Flags(1) | Flags(4)
print(f, f + 0, 3 | Flags(8), f.bit_length(), str(f), f"{f}", f"{f:04b}")

def err(fn):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__ + ":", e)
err(lambda: object.__new__(Name))
err(lambda: str.__new__(int, "x"))
err(lambda: int.__new__(str))
err(lambda: bytes.__new__(list))
class B2(bool): pass
