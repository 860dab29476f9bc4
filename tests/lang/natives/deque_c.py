# _collections.deque (the C ring buffer behind collections.deque), _count_elements and
# _tuplegetter, against CPython.
from _collections import deque, _count_elements, _tuplegetter
import collections

d = deque([1, 2, 3])
d.append(4)
d.appendleft(0)
print(d, len(d), d[0], d[-1], d.pop(), d.popleft(), d)
d.extend('ab')
d.extendleft([9, 8])
print(d, d.count(2), d.index('a'), d.index(2, 1, 5), 3 in d, 'z' in d)
d.rotate(2)
print(d)
d.rotate(-3)
print(d)
d.rotate()
print(d, d.maxlen)
d.insert(1, 'x')
d.insert(-1, 'y')
d.insert(100, 'z')
d.remove('x')
del d[0]
d[1] = 'S'
print(d, list(reversed(d)), d.copy(), d == d.copy(), d is not d.copy())
d.reverse()
print(d)
m = deque(range(10), maxlen=4)
print(m, m.maxlen)
m.append(10)
m.appendleft(-1)
print(m)
m.extend(range(3))
print(m, repr(deque(maxlen=0)), deque('abc', 2))
z = deque([], 0)
z.append(1)
print(z, len(z))
e = deque([1, 2])
e += [3]
e *= 2
print(e, e * 2, 2 * deque('ab'), e + deque([7]), deque([1, 2], maxlen=3) * 3)
mm = deque([1, 2, 3], maxlen=4)
mm *= 10
print(mm)
print(deque([1, 2]) < deque([1, 3]), deque([1]) == [1], deque() == deque(), deque([2]) >= deque([1, 5]))
r = deque([1])
r.append(r)
print(r)
s = deque(range(5))
s.extend(s)
print(s)
for f in (lambda: deque().pop(), lambda: deque().popleft(), lambda: deque([1])[5], lambda: deque([1]).index(7),
          lambda: deque([1]).remove(3), lambda: deque([1], maxlen=1).insert(0, 2), lambda: deque(maxlen=-1),
          lambda: deque([1]) + [2], lambda: deque([1])['a']):
    try:
        f()
    except Exception as ex:
        print(type(ex).__name__, ex)
it = iter(deque([1, 2, 3]))
dd = deque([1, 2, 3])
it = iter(dd)
next(it)
dd.append(4)
try:
    next(it)
except RuntimeError as ex:
    print('RuntimeError', ex)


class MyDeque(deque):
    pass


md = MyDeque([1, 2], 5)
md.tag = 'x'
print(md, type(md.copy()).__name__, md.copy().maxlen, md.tag, isinstance(md, deque))
big = deque()
for i in range(100000):
    big.append(i)
    if i % 3 == 0:
        big.popleft()
print(len(big), big[0], big[-1], sum(big))
c = {}
_count_elements(c, 'abracadabra')
print(sorted(c.items()), collections.Counter('hello').most_common(2))
g = _tuplegetter(1, 'second')
class P(tuple):
    y = g
print(P((1, 2)).y, g.__doc__, P.y is g)
try:
    P((1, 2)).y = 3
except AttributeError as ex:
    print('AttributeError', ex)
print(type(d).__name__, type(d).__module__, deque.__module__)
