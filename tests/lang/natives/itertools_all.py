# Every itertools function of 3.11 against CPython: results, laziness, keyword arguments,
# error messages, reprs of count/repeat, tee buffering past one link, groupby's shared state.
import itertools as it
from itertools import (count, cycle, repeat, accumulate, chain, compress, dropwhile, filterfalse,
                       groupby, islice, pairwise, starmap, takewhile, tee, zip_longest, product,
                       permutations, combinations, combinations_with_replacement)
import operator

print(list(islice(count(), 5)), list(islice(count(10, -3), 4)), list(islice(count(0.5, 0.25), 3)))
print(list(islice(count(start=2, step=5), 3)), repr(count()), repr(count(3, 2)), repr(count(1.5)), repr(count(2, 1.0)))
c = count(2**40, 2**39)
print(next(c), next(c))
print(list(islice(cycle('abc'), 8)), list(cycle([])), list(islice(cycle(iter([1, 2])), 5)))
print(list(repeat('x', 3)), list(repeat(1, -2)), list(islice(repeat(None), 2)), repr(repeat('a')), repr(repeat('a', 2)))
print(operator.length_hint(repeat(1, 7)), len(list(repeat(0, times=4))))
print(list(accumulate([1, 2, 3, 4])), list(accumulate([1, 2, 3], operator.mul)), list(accumulate([], initial=5)))
print(list(accumulate([1, 2], initial=10)), list(accumulate(['a', 'b', 'c'])), list(accumulate([3, 1, 4, 1, 5], max)))
print(list(accumulate(iterable=[1, 2], func=operator.sub)))
print(list(chain('ab', [1, 2], (), range(2))), list(chain()), list(chain.from_iterable(['ab', 'cd'])))
print(list(chain.from_iterable(iter([range(2), range(3)]))), type(chain()).__name__, chain.__module__)
print(list(compress('ABCDEF', [1, 0, 1, 0, 1, 1])), list(compress(range(10), [1, 0, 1])), list(compress(data='ab', selectors=[0, 1])))
print(list(dropwhile(lambda x: x < 5, [1, 4, 6, 4, 1])), list(takewhile(lambda x: x < 5, [1, 4, 6, 4, 1])))
print(list(filterfalse(lambda x: x % 2, range(10))), list(filterfalse(None, [0, 1, '', 'a', None, []])))
print([(k, list(g)) for k, g in groupby('AAAABBBCCDAABBB')])
print([(k, list(g)) for k, g in groupby([1, 2, 3, 4, 5, 6], key=lambda x: x // 3)])
gb = groupby('aabbc')
k1, g1 = next(gb)
k2, g2 = next(gb)
print(k1, list(g1), k2, list(g2), [k for k, g in gb])
print([list(g) for k, g in groupby('')], list(groupby([1, 1], None))[0][0])
print(list(islice('ABCDEFG', 2)), list(islice('ABCDEFG', 2, 4)), list(islice('ABCDEFG', 2, None)), list(islice('ABCDEFG', 0, None, 2)))
print(list(islice(range(10), 1, 8, 3)), list(islice(range(3), None)), list(islice(range(5), None, None, None)), list(islice(count(), 3, 3)))
src = iter(range(10))
print(list(islice(src, 3)), next(src))
for args in ((-1,), (1, -1), ('a',), (0, 1, 0), (0, 1, -2), (-2, 5), (1.5,)):
    try:
        islice(range(5), *args)
    except ValueError as e:
        print('ValueError', e)
for bad in (lambda: islice([1]), lambda: islice([1], 1, 2, 3, 4), lambda: islice([1], stop=2)):
    try:
        bad()
    except TypeError as e:
        print('TypeError', e)
print(list(pairwise('ABCDE')), list(pairwise('A')), list(pairwise([])))
print(list(starmap(pow, [(2, 5), (3, 2), (10, 3)])), list(starmap(operator.add, [[1, 2], 'ab'])))
a, b = tee(range(5))
print(list(a), list(b))
a, b, c = tee(iter('abcdefghij' * 20), 3)
print(''.join(islice(a, 100)) == ('abcdefghij' * 10), ''.join(b)[:12], len(list(c)), tee([1], 0))
a, b = tee([1, 2, 3])
a2, = tee(a, 1)
print(next(a), list(a2), list(b), type(a).__name__, type(a2) is type(a))
import copy
x, = tee('xyz', 1)
next(x)
y = copy.copy(x)
print(list(x), list(y))
try:
    tee([], -1)
except ValueError as e:
    print('ValueError', e)
print(list(zip_longest('ABCD', 'xy', fillvalue='-')), list(zip_longest()), list(zip_longest([1], [2, 3], [])))
try:
    zip_longest([], bogus=1)
except TypeError as e:
    print('TypeError', e)
print(list(product('ab', range(2))), list(product(range(2), repeat=3))[:5], list(product()), list(product('ab', [])))
print(len(list(product('abc', 'de', repeat=2))), list(product('a', repeat=0)))
try:
    product('a', repeat=-1)
except ValueError as e:
    print('ValueError', e)
print(list(permutations('ABC', 2)), list(permutations(range(3))), list(permutations([], 0)), list(permutations('ab', 3)))
print(len(list(permutations(range(5)))), list(permutations('abcd', r=1)), list(permutations('ab', None)))
print(list(combinations('ABCD', 2)), list(combinations(range(4), 3)), list(combinations('ab', 3)), list(combinations('', 0)))
print(list(combinations_with_replacement('ABC', 2)), list(combinations_with_replacement('', 2)), list(combinations_with_replacement('', 0)))
print(len(list(combinations(range(10), 4))), len(list(combinations_with_replacement(range(6), 3))))
for bad in (lambda: combinations('ab', -1), lambda: permutations('ab', -2)):
    try:
        bad()
    except ValueError as e:
        print('ValueError', e)
try:
    combinations('ab')
except TypeError as e:
    print('TypeError', e)
for f in (lambda: product('a', x=1), lambda: zip_longest(x=1), lambda: count(x=1), lambda: accumulate([], x=1),
          lambda: groupby([], x=1), lambda: permutations('a', x=1), lambda: chain.from_iterable(), lambda: cycle(),
          lambda: pairwise(1, 2), lambda: starmap(1), lambda: tee(), lambda: tee(1, 2, 3), lambda: count(1, 2, 3)):
    try:
        f()
    except TypeError as e:
        print('TypeError', e)
try:
    count('a')
except TypeError as e:
    print('TypeError', e)


class Boom:
    def __iter__(self):
        return self

    def __next__(self):
        raise KeyError('boom')


for f in (lambda: list(chain(Boom())), lambda: list(islice(Boom(), 2)), lambda: list(zip_longest(Boom(), [1])),
          lambda: list(tee(Boom())[0]), lambda: list(groupby(Boom())), lambda: list(pairwise(Boom()))):
    try:
        f()
    except KeyError as e:
        print('KeyError', e)
print(isinstance(count(), count), sorted(n for n in dir(it) if not n.startswith('__')))


class MyChain(chain):
    pass


print(list(MyChain('ab', 'c')), type(MyChain()).__name__)
total = 0
for i in islice(count(), 100000):
    total += i
print(total, sum(1 for _ in product(range(20), repeat=3)))
