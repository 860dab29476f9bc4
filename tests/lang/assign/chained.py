# Chained assignment binds every target to the same object, left to right.
a = b = c = 0
print(a, b, c)
x = y = []
x.append(1)
print(y, x is y)
class O: pass
o = O()
d = {}
o.attr = d["k"] = n = 5
print(o.attr, d, n)
i = 0
lst = [10, 20, 30]
i = lst[i] = 1   # i is assigned first, then lst[1]
print(i, lst)
