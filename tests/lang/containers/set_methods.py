# set and frozenset methods and operators.
a = {1, 2, 3}
b = {3, 4}
print(sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b), a <= {1, 2, 3, 4}, a < a, a >= {1}, a > {1}, a == {3, 2, 1})
print(sorted(a.union([9], (8,))), sorted(a.intersection(range(2, 10))), sorted(a.difference({1})), sorted(a.symmetric_difference([1, 5])))
print(a.issubset(range(10)), a.issuperset([1]), a.isdisjoint({7}), 2 in a, 7 not in a, len(a))
s = set()
s.add(1); s.add(1); s.add(2); s.update([3, 4], "ab"); s.discard(99); s.discard("a"); s.remove("b")
print(sorted(s), s.pop() in {1, 2, 3, 4}, len(s))
s.clear(); print(s, set("abc") == {"c", "b", "a"}, set([1, 1]), bool(set()))
c = {1, 2}; c |= {3}; c &= {2, 3}; c -= {9}; c ^= {4}; print(sorted(c))
c.intersection_update({2, 4, 5}); c.difference_update([4]); print(c)
f = frozenset([1, 2])
print(f, type(f | {3}).__name__, f & {1}, hash(f) == hash(frozenset([2, 1])), {f: "key"}[frozenset({1, 2})], f == {1, 2})
print({x % 3 for x in range(10)}, set(range(5)), {-1, -2} == {-2, -1}, sorted({(1, 2), (0, 1)}))
print({1, 2, 3, 100, 17, 33}, {10, 5, 1}, set([7, 3, 9, 1]), {True, 1, 1.0})
for bad in [lambda: set().pop(), lambda: {1}.remove(2), lambda: {[1]}, lambda: frozenset().add(1), lambda: {1} + {2}]:
    try:
        bad()
    except (KeyError, TypeError, AttributeError) as e:
        print(type(e).__name__ + ":", e)
