x = 1
a = b = c = 0
x, y = y, x
a, *rest = xs
*init, last = xs
first, *middle, last = xs
[a, b] = c
(a, b) = c
[a, [b, c]] = d
(a, (b, *c)) = d
x.attr = 1
x.a.b = 2
x[0] = 1
x[1:2] = [3]
x[a, b] = c
obj.items[i].value = v
a = b = x.y = z[0] = 5
x = yield_value = None
t = 1,
