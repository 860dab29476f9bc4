# Tuple/list unpacking, nested targets, starred targets, and their errors.
a, b = 1, 2
a, b = b, a
print(a, b)
(c, d), e = (3, 4), 5
[f, g] = "xy"
print(c, d, e, f, g)
first, *rest = [1, 2, 3, 4]
*init, last = range(5)
h, *mid, t = "abcde"
*only, = (9,)
p, *q = [1]
print(first, rest, init, last, h, mid, t, only, p, q)
for k, (v1, v2) in [("a", (1, 2)), ("b", (3, 4))]:
    print(k, v1 + v2)
x, y, z = {"one": 1, "two": 2, "three": 3}
print(x, y, z)
m, n = iter([7, 8])
print(m, n)
try:
    a, b = 1, 2, 3
except ValueError as exc:
    print("ValueError:", exc)
try:
    a, b, c = [1, 2]
except ValueError as exc:
    print("ValueError:", exc)
try:
    a, *b, c = [1]
except ValueError as exc:
    print("ValueError:", exc)
try:
    a, b = 5
except TypeError as exc:
    print("TypeError:", exc)
try:
    a, b = (i for i in range(3))
except ValueError as exc:
    print("ValueError:", exc)
class Box:
    pass
bx = Box()
lst = [0, 0, 0]
bx.u, lst[1], *lst[2:] = 1, 2, 3, 4
print(bx.u, lst)
