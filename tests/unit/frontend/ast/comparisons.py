a = x < y
b = x <= y < z
c = a == b != c
d = a > b >= c
e = x in y
f = x not in y
g = x is None
h = x is not None
i = a < b == c > d <= e >= f != g in h not in i is j is not k
j = not a == b
