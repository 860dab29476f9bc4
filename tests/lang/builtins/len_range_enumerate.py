# len, range (all forms, negative steps, attributes, indexing, containment), enumerate.
print(len(""), len("héllo"), len([1, 2]), len((1,)), len({1: 2}), len({1, 2, 3}), len(range(10)), len(b"ab"))
print(list(range(5)), list(range(2, 8)), list(range(0, 10, 3)), list(range(10, 0, -2)), list(range(5, 5)))
r = range(1, 20, 4)
print(r, r.start, r.stop, r.step, r[0], r[-1], r[1:3], len(r), 9 in r, 10 in r, r.index(13), r.count(5))
print(range(3) == range(0, 3), range(0) == range(5, 5), list(reversed(range(4))), range(-5, -1)[::2])
print(list(enumerate("abc")), list(enumerate(["x", "y"], 10)), list(enumerate([], start=5)))
e = enumerate("ab")
print(next(e), next(e), type(e).__name__)
for bad in [lambda: range(1, 2, 0), lambda: range(1.5), lambda: len(5), lambda: range(3)[5], lambda: range(3).index(7)]:
    try:
        bad()
    except (ValueError, TypeError, IndexError) as ex:
        print(type(ex).__name__ + ":", ex)
