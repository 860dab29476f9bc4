del (a, b), [c]
del *a
