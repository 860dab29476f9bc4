f(a, b=c for c in d)
