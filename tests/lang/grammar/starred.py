# Starred expressions everywhere 3.11 allows them, decorators of any expression, del targets.
a, b = [1, 2], (3, 4)
print(*a, *b)
print([*a, *b], {*a, *b}, (*a, *b), {**{'k': 1}, 'z': 2})
first, *rest = range(5)
print(first, rest)
*init, last = 'abc'
print(init, last)
(p, *q), r = [1, 2, 3], 4
print(p, q, r)


def ret():
    return *a, *b


print(ret())


def gen():
    yield *a, 9


print(list(gen()))
for item in *a, *b:
    print(item, end=' ')
print()
d = {(1, 2): 'tup', (1, 2, 3): 'three'}
t = (1, 2)
print(d[*t], d[*t, 3], d[(*t,)])
s = [*range(3)] + [*'xy']
print(s)
print(dict(**{'a': 1}, **{'b': 2}))
print(max(*a, *b, 0))
buttons = [lambda fn: fn, lambda fn: (lambda: fn() + '!')]


@buttons[1]
def g():
    return 'decorated'


print(g())


@(lambda fn: fn)
def h():
    return 'lambda decorated'


print(h())


class NS:
    deco = staticmethod(lambda fn: lambda: 'ns ' + fn())


@NS.deco
def k():
    return 'k'


print(k())


@buttons[0] if True else None
def cond():
    return 'conditional decorator'


print(cond())
x = [0, 1, 2, 3, 4]
del x[0], (x[1])
print(x)
lst = [1, 2, 3, 4, 5]
del lst[::2]
print(lst)


class C:
    pass


c = C()
c.z = 1
del c.z
print(hasattr(c, 'z'))
m, n = 1, 2
del (m, n)
try:
    m
except NameError as e:
    print(e)
o, [pp, qq] = 1, [2, 3]
del [o, [pp, qq]]
print('o' in globals(), 'pp' in globals())
