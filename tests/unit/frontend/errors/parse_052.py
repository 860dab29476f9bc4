a.b: int = 1
x += 1
f(x) += 1
