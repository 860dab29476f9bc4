# _functools (the C module behind functools.py): reduce, partial (flattening, keyword merge,
# repr, attributes, subclassing), cmp_to_key, lru_cache over _lru_cache_wrapper (hits, misses,
# LRU eviction order, typed keys, keyword keys, recursion, methods, cache_clear).
import functools
import _functools
from _functools import partial, reduce, cmp_to_key
from functools import lru_cache

print(reduce(lambda a, b: a * b, range(1, 8)), reduce(lambda a, b: a + b, [], 10), reduce(max, [3, 9, 2]))
for f in (lambda: reduce(max, []), lambda: reduce(max), lambda: reduce(max, 5)):
    try:
        f()
    except TypeError as e:
        print('TypeError', e)


def f(a, b, c=0, *, d=1):
    return (a, b, c, d)


p = partial(f, 1, d=4)
print(p(2), p(2, 3, d=5), p.func is f, p.args, p.keywords, repr(p).replace(repr(f), 'F'))
q = partial(p, 9, c=7)
print(q(), q.func is f, q.args, q.keywords, repr(partial(max)))
print(repr(partial(max, 1, 'a', key=len)))
p.attr = 5
r = partial(p, 2)
print(r.func is p, r(), p.attr)


class MyPartial(partial):
    pass


mp = MyPartial(f, 1, 2)
print(mp(), repr(mp).replace(repr(f), 'F'), isinstance(mp, partial), type(partial(mp)) is partial)
try:
    partial(1)
except TypeError as e:
    print('TypeError', e)
print(sorted([3, 1, 2], key=cmp_to_key(lambda a, b: b - a)), cmp_to_key(lambda a, b: 0)(5).obj)
K = cmp_to_key(lambda a, b: (a > b) - (a < b))
print(K(1) < K(2), K(2) <= K(2), K(3) == K(3), K(1) != K(1), K(5) > K(2), K(1) >= K(2))
try:
    K(1) < 5
except TypeError as e:
    print('TypeError', e)
calls = []


@lru_cache(maxsize=2)
def sq(x):
    calls.append(x)
    return x * x


print([sq(i) for i in (1, 2, 1, 3, 2, 1)], calls, sq.cache_info())
sq.cache_clear()
print(sq.cache_info(), sq.cache_parameters(), sq.__wrapped__.__name__, sq.__name__)


@lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(80), fib.cache_info())


@lru_cache(typed=True)
def t(x, **kw):
    return (type(x).__name__, sorted(kw.items()))


print(t(1), t(1.0), t(1, a=2), t(x=1), t.cache_info())


@lru_cache
def plain(x):
    return [x]


print(plain(1) is plain(1), plain.cache_info())


@functools.cache
def unbounded(x):
    return x


print(unbounded(2), unbounded(2), unbounded.cache_info())
zero = lru_cache(maxsize=0)(lambda x: x + 1)
print(zero(1), zero(1), zero.cache_info())


class C:
    @lru_cache(maxsize=4)
    def m(self, y):
        return y * 2


c = C()
print(c.m(3), c.m(3), C.m.cache_info())
try:
    lru_cache(maxsize='x')
except TypeError as e:
    print('TypeError', e)
try:
    sq([1])
except TypeError as e:
    print('TypeError', e)
print(type(sq).__name__, type(p).__name__, sorted(n for n in dir(_functools) if not n.startswith('__')))
