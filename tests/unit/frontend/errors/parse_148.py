f(a for a in b, c for c in d)
