f() = 1

a, b = 1, 2

[x for x in y] = 3

x + 1 += 2

del f()

for 1 in range(3):
    pass

with a as f():
    pass
