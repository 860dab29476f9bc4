# Comparisons: chains (evaluated once), mixed types, sequences, identity, membership.
def v(x):
    print("eval", x)
    return x
print(v(1) < v(2) < v(3))
print(v(3) < v(2) < v(1))
print(1 == 1.0, 2 < 2.5, True == 1, "a" < "b", "Z" < "a", "ab" < "abc")
print([1, 2] < [1, 3], (1, 2) < (1, 2, 0), [1, [2]] == [1, [2]], (1,) == [1], {1: 2} == {1: 2})
print({1, 2} <= {1, 2, 3}, {1} < {1}, {1, 2} > {2}, frozenset([1]) == {1}, None == None, None == 0)
x = [1]
y = [1]
print(x == y, x is y, x is not y, None is None, 1 in x, 2 not in x, "b" in "abc", "" in "a")
print(1 in {1: 2}, 2 in {1: 2}, 3 in range(5), 10 in range(0, 20, 3), 9 in range(0, 20, 3))
print(float("nan") == float("nan"), float("nan") != float("nan"), float("inf") > 1e308)
try:
    1 < "a"
except TypeError as e:
    print("TypeError:", e)
try:
    [1] < (1,)
except TypeError as e:
    print("TypeError:", e)
try:
    {} < {}
except TypeError as e:
    print("TypeError:", e)
try:
    None < None
except TypeError as e:
    print("TypeError:", e)
print(max(1, 2.5), min("b", "a"), sorted([3, 1.5, 2]), [] == [], () == (), "" == "")
