f(a=1, b)

g(x for x in y, 1)

h(**k, *a)

m(a b)

n(True=1)
