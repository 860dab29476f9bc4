# Dict and set comprehensions.
print({k: k * k for k in range(5)})
print({k: v for k, v in zip("abc", range(3)) if v})
print({v: k for k, v in {"a": 1, "b": 2}.items()})
print(sorted({x % 4 for x in range(20)}), {c for c in "aabbc"} == {"a", "b", "c"})
print({(i, j): i * j for i in range(2) for j in range(2)})
print({i: {j for j in range(i)} for i in range(3)})
words = ["apple", "bob", "cat", "anna"]
print({w[0]: len(w) for w in words})
print(sorted({len(w) for w in words if w[0] == "a"}))
