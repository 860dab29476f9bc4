# Subscripts: indexing, slicing with steps and negatives, tuples and Ellipsis as keys.
s = list(range(10))
print(s[0], s[-1], s[2:5], s[:3], s[7:], s[::3], s[::-1], s[-3:], s[:-7], s[8:2:-2], s[100:], s[-100:2])
t = "abcdef"
print(t[1], t[-2], t[1:4], t[::-1], t[::2], t[5:0:-1], t[-1:-4:-1], t[10:20] == "")
tu = (1, 2, 3)
print(tu[1:], tu[::-1], tu[0:0])
class Probe:
    def __getitem__(self, key):
        return key
p = Probe()
print(p[1], p[1:2], p[::2], p[1:2, 3], p[:, 0], p[1:3, ..., None], p[...], p[()], p["k"])
print(p[::], p[1:], p[:1:], p[None:None:None], p[-1, :, ::-1])
sl = slice(1, 8, 2)
print(s[sl], sl.start, sl.stop, sl.step, slice(3), slice(1, 2), sl.indices(5))
print(repr(p[1:2]), type(p[...]).__name__, p[...] is Ellipsis)
try:
    s[20]
except IndexError as e:
    print("IndexError:", e)
try:
    t[9]
except IndexError as e:
    print("IndexError:", e)
try:
    s["x"]
except TypeError as e:
    print("TypeError:", e)
try:
    s[::0]
except ValueError as e:
    print("ValueError:", e)
try:
    tu[5]
except IndexError as e:
    print("IndexError:", e)
d = {(1, 2): "pair"}
print(d[1, 2], d[(1, 2)])
m = [[1, 2], [3, 4]]
print(m[1][0], m[-1][-1])
