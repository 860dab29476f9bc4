a = lambda: 0
b = lambda x: x
c = lambda x, y: x + y
d = lambda x=1, y=2: x + y
e = lambda *args: args
f = lambda **kw: kw
g = lambda x, *args, y, z=1, **kw: 0
h = lambda x, /, y: 0
i = lambda *, key=None: key
j = lambda a, b=1, /, c=2, *d, e, f=3, **g: 0
k = lambda: (yield)
l = (lambda x: lambda y: x + y)(1)(2)
