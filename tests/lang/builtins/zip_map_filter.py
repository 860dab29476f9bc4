# zip, map, filter, reversed: laziness, multiple iterables, shortest wins.
print(list(zip([1, 2, 3], "ab")), list(zip()), list(zip([1])), list(zip(range(3), range(3), "xyz")))
print(list(map(str, [1, 2])), list(map(lambda a, b: a * b, [1, 2, 3], [4, 5])), list(map(len, ["ab", ""])))
print(list(filter(None, [0, 1, "", "a", None, [], [0]])), list(filter(lambda x: x % 2, range(7))))
print(list(reversed([1, 2, 3])), list(reversed("abc")), list(reversed((1, 2))), list(reversed(range(3))))
def noisy(x):
    print("map called", x)
    return x
m = map(noisy, [1, 2])
print("map created")
print(next(m))
z = zip(iter([1, 2]), iter("ab"))
print(type(z).__name__, type(m).__name__, next(z))
d = {"a": 1, "b": 2}
print(list(reversed(d)), list(zip(d, d.values())), dict(zip("ab", range(2))))
try:
    reversed({1, 2})
except TypeError as e:
    print("TypeError:", e)
try:
    zip(1)
except TypeError as e:
    print("TypeError:", e)
