# sorted (key, reverse, stability), min/max (key, default, iterables), sum (start).
words = ["banana", "Apple", "cherry", "date", "Egg"]
print(sorted(words), sorted(words, key=str.lower), sorted(words, key=len, reverse=True))
print(sorted([3, 1, 2], reverse=True), sorted("hello"), sorted({3: "c", 1: "a"}), sorted((2.5, -1, 0)))
pairs = [(1, "b"), (0, "z"), (1, "a"), (0, "y")]
print(sorted(pairs, key=lambda p: p[0]), sorted(pairs))
print(min(3, 1, 2), max(3, 1, 2), min([4, 5]), max("abc"), min(words, key=len), max(words, key=lambda w: w[-1]))
print(min([], default="empty"), max([], default=None), min((1, 2), (1, 1)), max(1, 2.5, True))
print(sum([1, 2, 3]), sum([0.1] * 10), sum([[1], [2]], []), sum(range(101)), sum([], 10), sum((1.5, 2), start=1))
for bad in [lambda: min([]), lambda: max(), lambda: sorted([1, "a"]), lambda: sum(["a", "b"], ""),
            lambda: min(1), lambda: sorted([3, 1], key=5)]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__ + ":", e)
