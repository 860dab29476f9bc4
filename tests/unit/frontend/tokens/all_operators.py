a = (b, c[d], {e: f}); g.h
a + b - c * d / e // f % g ** h @ i
a += 1; a -= 1; a *= 1; a /= 1; a //= 1; a %= 1; a **= 1; a @= 1
a &= 1; a |= 1; a ^= 1; a <<= 1; a >>= 1
a & b | c ^ ~d << e >> f
a < b > c <= d >= e == f != g
def f(x) -> int: return x
x = ...
(y := 1)
lambda: 0
