# Arithmetic dunders: forward, reflected, in-place, unary, and NotImplemented fallback.
class V:
    def __init__(self, *c): self.c = list(c)
    def __repr__(self): return "V" + repr(tuple(self.c))
    def _op(self, other, f):
        if isinstance(other, V):
            return V(*[f(a, b) for a, b in zip(self.c, other.c)])
        if isinstance(other, (int, float)):
            return V(*[f(a, other) for a in self.c])
        return NotImplemented
    def __add__(self, o): return self._op(o, lambda a, b: a + b)
    def __radd__(self, o): return self._op(o, lambda a, b: b + a)
    def __sub__(self, o): return self._op(o, lambda a, b: a - b)
    def __rsub__(self, o): return self._op(o, lambda a, b: b - a)
    def __mul__(self, o): return self._op(o, lambda a, b: a * b)
    def __rmul__(self, o): return self._op(o, lambda a, b: b * a)
    def __truediv__(self, o): return self._op(o, lambda a, b: a / b)
    def __rtruediv__(self, o): return self._op(o, lambda a, b: b / a)
    def __floordiv__(self, o): return self._op(o, lambda a, b: a // b)
    def __rfloordiv__(self, o): return self._op(o, lambda a, b: b // a)
    def __mod__(self, o): return self._op(o, lambda a, b: a % b)
    def __rmod__(self, o): return self._op(o, lambda a, b: b % a)
    def __pow__(self, o): return self._op(o, lambda a, b: a ** b)
    def __rpow__(self, o): return self._op(o, lambda a, b: b ** a)
    def __matmul__(self, o): return sum(a * b for a, b in zip(self.c, o.c))
    def __rmatmul__(self, o): return "rmatmul"
    def __and__(self, o): return self._op(o, lambda a, b: a & b)
    def __rand__(self, o): return self._op(o, lambda a, b: b & a)
    def __or__(self, o): return self._op(o, lambda a, b: a | b)
    def __ror__(self, o): return self._op(o, lambda a, b: b | a)
    def __xor__(self, o): return self._op(o, lambda a, b: a ^ b)
    def __rxor__(self, o): return self._op(o, lambda a, b: b ^ a)
    def __lshift__(self, o): return self._op(o, lambda a, b: a << b)
    def __rlshift__(self, o): return self._op(o, lambda a, b: b << a)
    def __rshift__(self, o): return self._op(o, lambda a, b: a >> b)
    def __rrshift__(self, o): return self._op(o, lambda a, b: b >> a)
    def __neg__(self): return V(*[-a for a in self.c])
    def __pos__(self): return "pos"
    def __invert__(self): return V(*[~a for a in self.c])
    def __abs__(self): return V(*[abs(a) for a in self.c])
v, w = V(1, -2), V(3, 4)
print(v + w, v + 1, 1 + v, v - w, 10 - v, v * 2, 2 * v, w / 2, 12 / w, w // 2, 7 // w)
print(w % 3, 7 % w, w ** 2, 2 ** w, v @ w, 5 @ v if False else None, v & 3, 3 & w, v | 8, 8 | v)
print(v ^ 1, 1 ^ v, w << 1, 1 << w, w >> 1, 64 >> w, -v, +v, ~v, abs(v))
class Acc:
    def __init__(self): self.items = []
    def __iadd__(self, o):
        self.items.append(o)
        return self
    def __isub__(self, o): return "isub result"
    def __add__(self, o): return "plain add"
a = Acc()
alias = a
a += 1
a += 2
print(a.items, a is alias)
a -= 5
print(a)
class OnlyAdd:
    def __add__(self, o): return "add used for +="
x = OnlyAdd()
x += 1
print(x)
try:
    v + "s"
except TypeError as e:
    print("TypeError:", e)
try:
    "s" - v
except TypeError as e:
    print("TypeError:", e)
class Sub(V):
    def __radd__(self, o): return "Sub.__radd__ wins"
print(V(1) + Sub(2))
try:
    Acc() * 2
except TypeError as e:
    print("TypeError:", e)
try:
    -Acc()
except TypeError as e:
    print("TypeError:", e)
