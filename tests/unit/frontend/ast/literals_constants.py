a = True
b = False
c = None
d = ...
e = [True, False, None, ...]
f = x[...]
g = t[1:3, ..., None]
