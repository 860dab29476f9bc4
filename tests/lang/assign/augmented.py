# Augmented assignment of every operator on names, attributes and subscripts.
x = 10
x += 5; print(x)
x -= 3; print(x)
x *= 4; print(x)
x //= 5; print(x)
x %= 7; print(x)
x **= 3; print(x)
x <<= 2; print(x)
x >>= 1; print(x)
x &= 0xF; print(x)
x |= 0x30; print(x)
x ^= 0xFF; print(x)
x /= 4; print(x)
class Obj:
    def __init__(self):
        self.v = 1
o = Obj()
o.v += 1; o.v *= 10; o.v -= 2; o.v //= 3; o.v **= 2; o.v %= 5; o.v <<= 3; o.v >>= 1
o.v |= 1; o.v &= 7; o.v ^= 2; o.v /= 2
print(o.v)
l = [1, 2, 3]
l[0] += 10; l[1] *= 3; l[2] -= 1; l[-1] **= 4; l[0] //= 2; l[1] %= 4; l[0] <<= 1
l[0] >>= 2; l[1] |= 8; l[1] &= 12; l[2] ^= 1; l[2] /= 4
print(l)
d = {"k": "a"}
d["k"] += "b"; d["k"] *= 2
print(d)
s = "x"; s += "y"; s *= 3; print(s)
t = (1,); t += (2,); print(t)
lst = [1]; alias = lst; lst += [2]; print(alias, lst is alias)
lst *= 2; print(alias)
class M:
    def __init__(self, v): self.v = v
    def __matmul__(self, o): return M(self.v * o.v)
    def __imatmul__(self, o):
        self.v = self.v * o.v + 1000
        return self
    def __repr__(self): return f"M({self.v})"
m = M(2)
m2 = m
m @= M(3)
print(m, m2, m is m2)
n = M(2); n = n @ M(5); print(n)
calls = []
def key():
    calls.append("key")
    return 0
l2 = [5]
l2[key()] += 1
print(l2, calls)
