# frozenset complete: operators and methods with any iterable, copy() returning itself, hash
# equal to CPython's, subclasses, __reduce__, and the TypeErrors of mutation and mixing with lists.
a = frozenset([1, 2, 3]); b = frozenset([3, 4])
print(sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b), a <= a, a < a, a >= frozenset(), a.isdisjoint(b), a.issubset([1,2,3,4]), a.issuperset([1]))
print(sorted(a.union([9], (8,))), sorted(a.intersection([1, 2], [2])), sorted(a.difference([1], [2])), sorted(a.symmetric_difference([1, 9])), a.copy() is a, type(a.copy()).__name__)
print(hash(frozenset()) == hash(frozenset([])), hash(frozenset([1,2])) == hash(frozenset([2,1])), hash(frozenset([1, 2, 3])), hash(frozenset()), frozenset() == set(), a == {1, 2, 3})
print(repr(frozenset()), repr(frozenset([1])), repr(frozenset({"a"})), {frozenset([1]): "x"}[frozenset({1})])
s = {1, 2}; s |= {3}; s &= {1, 3, 5}; s -= {5}; s ^= {9}; print(sorted(s))
print(type(a | {5}).__name__, type({5} | a).__name__, type(a.union({5})).__name__)
class FS(frozenset): pass
f = FS([1, 2])
print(type(f).__name__, type(f | {3}).__name__, type(f.copy()).__name__, f == {1, 2}, FS.__mro__[1].__name__)
print(len(a), 2 in a, list(sorted(iter(a))), frozenset("abc") == frozenset("cba"), frozenset(range(5)).__reduce__()[0].__name__)
for bad in [lambda: a.add(1), lambda: frozenset([[1]]), lambda: a < [1], lambda: a | [1]]:
    try: bad()
    except (TypeError, AttributeError) as e: print(type(e).__name__ + ":", e)
print(set.__class_getitem__(int), frozenset([1,2]).__sizeof__() > 0, sorted(frozenset([3,1,2])))
