f(a, b for b in c)
