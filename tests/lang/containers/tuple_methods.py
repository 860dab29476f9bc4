# tuple operations: immutability, packing, comparisons, methods, hashing.
t = (1, 2, 3, 2)
print(t, t[0], t[-1], t[1:3], t.count(2), t.index(2), t.index(2, 2), len(t), 3 in t, t + (4,), t * 2, (0,) * 0)
print((1, 2) < (1, 3), (1, 2) == (1, 2), (1,) < (1, 0), () < (1,), (1, "a") == (1, "a"), tuple([1]), tuple("ab"))
x, = (5,)
y = 1, 2
(p, q), r = (1, 2), 3
print(x, y, p, q, r, type(()).__name__, (1) == 1, (1,) != 1)
try:
    t[0] = 9
except TypeError as e:
    print("TypeError:", e)
try:
    t.index(9)
except ValueError as e:
    print("ValueError:", e)
try:
    del t[0]
except TypeError as e:
    print("TypeError:", e)
print({(1, 2): "pair"}[(1, 2)], hash((1, (2, 3))) == hash((1, (2, 3))), sorted([(2, "b"), (1, "z"), (2, "a")]))
nested = ([1], [2])
nested[0].append(9)
print(nested, max((1, 5), (2, 0)), min([(3, "c"), (3, "a")]), tuple(reversed(t)))
