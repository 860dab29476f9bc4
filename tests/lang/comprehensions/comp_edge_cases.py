# Comprehensions: unpacking targets, nested conditions, dict/set comprehensions over items,
# comprehension results used as iterables, names not leaking, and errors inside them.
pairs = {"a": 1, "b": 2, "c": 3}
print([k * v for k, v in pairs.items() if v % 2], {v: k for k, v in pairs.items()}, {(k, v) for k, v in pairs.items() if v > 1} == {("b", 2), ("c", 3)})
print([(i, j) for i in range(4) if i % 2 for j in range(i) if j != 1])
print([x for x in [y * 2 for y in range(5)] if x > 4], sum(x for x in (y for y in range(5))))
print([[c for c in word if c in "aeiou"] for word in ["alpha", "beta"]])
print({i: [j for j in range(i)] for i in range(3)}, [a + b for a, (b, c) in [(1, (2, 3)), (4, (5, 6))]])
print([f"{x}:{y}" for x, *y in [(1, 2, 3), (4,)]], [i for i in range(3) for i in "ab"])
try:
    [1 / x for x in [1, 0]]
except ZeroDivisionError as e:
    print("ZeroDivisionError:", e)
i = "outer i"
squares = [i * i for i in range(3)]
print(i, squares, [lambda: i for i in range(2)][0]())
