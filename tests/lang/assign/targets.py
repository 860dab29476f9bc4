# Attribute, subscript and slice targets (store and delete).
class C:
    pass
c = C()
c.x = 1
c.y = c.x + 1
print(c.x, c.y)
lst = list(range(10))
lst[0] = "a"
lst[-1] = "z"
lst[2:4] = ["X", "Y", "Z"]
print(lst)
lst[::2] = [0] * 6
print(lst)
lst[1:3] = []
print(lst)
del lst[0]
del lst[-2:]
del lst[::3]
print(lst)
d = {}
d["a"] = 1
d[1, 2] = "tuple key"
d[None] = 0
print(d)
del d["a"]
print(d)
m = [[0] * 3 for _ in range(2)]
m[1][2] = 5
print(m)
try:
    lst[::2] = [1]
except ValueError as e:
    print(e)
del c.x
print(hasattr(c, "x"), c.y)
