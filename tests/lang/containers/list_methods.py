# list methods and operations.
l = [3, 1, 2]
l.append(4); l.extend([5, 6]); l.extend(range(2)); l.insert(0, "first"); l.insert(100, "last"); l.insert(-1, "x")
print(l, len(l))
print(l.pop(), l.pop(0), l.pop(-2), l)
l.remove(1)
print(l, l.index(2), l.index(0, 3), l.count(0), [1, 1, 2].count(1))
l2 = [5, 2, 9, 1]
l2.sort(); print(l2)
l2.sort(reverse=True); print(l2)
l2.sort(key=lambda v: v % 3); print(l2)
l2.reverse(); print(l2)
c = l2.copy(); c.append(0); print(l2, c)
c.clear(); print(c, [1, 2] + [3], [0] * 3, [[]] * 2, 3 * [1])
print([1, 2] == [1, 2], [1, 2] < [1, 3], [1] < [1, 0], [2] > [1, 9], [] == [], [1, [2]] == [1, [2]])
nested = [1, [2, 3]]
nested[1].append(4)
print(nested, 2 in nested[1], [1, 2, 3][-1], list(reversed([1, 2])), sorted([3, 1]) is not None)
a = [1, 2, 3, 4, 5]
a[1:3] = "xy"; print(a)
a[::2] = [0, 0, 0]; print(a)
del a[1::2]; print(a)
a += (7, 8); print(a)
s = ["b", "A", "c"]
s.sort(key=str.lower); print(s)
r = [1]; r.append(r); print(r)
for bad in [lambda: [].pop(), lambda: [1].index(5), lambda: [1].remove(5), lambda: [1, "a"].sort(),
            lambda: [1][3], lambda: [1].insert("0", 1), lambda: [] + (1,), lambda: [1] * 1.5]:
    try:
        bad()
    except (IndexError, ValueError, TypeError) as e:
        print(type(e).__name__ + ":", e)
