# Generator expressions: laziness, scoping of the first iterable, use as arguments.
g = (x * x for x in range(5))
print(type(g).__name__, next(g), list(g), list(g))
print(sum(x for x in range(10) if x % 2), max(len(s) for s in ["a", "bbb", "cc"]))
print(list((x, y) for x in range(3) for y in range(x)))
def noisy():
    print("iterable evaluated")
    return [1, 2]
lazy = (v for v in noisy())
print("created")
print(list(lazy))
data = [1, 2, 3]
gen = (d * 10 for d in data)
data = [9]
print(list(gen))
print(any(x > 2 for x in [1, 2, 3]), all(x for x in []), tuple(c.upper() for c in "ab"))
print(",".join(str(i) for i in range(4)), sorted((v for v in {3, 1, 2}), reverse=True))
print(dict((k, len(k)) for k in ["a", "bb"]), set(x % 2 for x in range(5)))
n = 3
print(list(x + n for x in range(n)))
