# Rich comparisons: __eq__/__ne__/__lt__/__le__/__gt__/__ge__, reflection, sorting, defaults.
class N:
    def __init__(self, v): self.v = v
    def __repr__(self): return f"N({self.v})"
    def __eq__(self, o):
        print("eq", self.v, o.v if isinstance(o, N) else o)
        return isinstance(o, N) and self.v == o.v
    def __lt__(self, o): return self.v < o.v
    def __le__(self, o): return self.v <= o.v
    def __hash__(self): return hash(self.v)
a, b = N(1), N(2)
print(a < b, a <= b, a > b, a >= b, b > a)
print(a == N(1), a != N(1), a != b)
print(sorted([N(3), N(1), N(2)]), min(N(5), N(4)), max([N(1), N(9)]))
print(N(1) in [N(0), N(1)])
class OnlyEq:
    def __eq__(self, o): return True
print(OnlyEq() == 5, OnlyEq() != 5, 5 == OnlyEq())
class Plain: pass
p = Plain()
print(p == p, p != p, p == Plain(), p != Plain())
try:
    p < p
except TypeError as e:
    print("TypeError:", e)
class Rev:
    def __gt__(self, o):
        return "Rev.__gt__ reflected"
print(1 < Rev())
class NI:
    def __eq__(self, o): return NotImplemented
print(NI() == NI(), NI() != 1)
print(NotImplemented.__class__.__name__, bool(N) if False else "")
