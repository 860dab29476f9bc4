# List, tuple, dict and set displays with unpacking.
a = [1, 2]
b = (3, 4)
print([*a, *b, 5], (*a, *b), (*a,), [*"hi"], [*range(3), *{}])
d1 = {"x": 1, "y": 2}
d2 = {"y": 20, "z": 30}
print({**d1, **d2}, {**d1, "y": 99}, {"w": 0, **d1}, {**{}})
print({*a, *b}, {1, 1, 2} == {1, 2}, sorted({*"aab"}))
print((), (1,), [], {}, set(), (1, 2) + (3,), [[]] * 2)
print({1: "a", 1.0: "b", True: "c"}, {"k": 1, "k": 2})
print(type({}).__name__, type({1}).__name__, type(()).__name__)
x = 1,
y = 1, 2
print(x, y)
nested = {"list": [1, {"set": sorted({3, 2})}], "tuple": (None, ...)}
print(nested)
