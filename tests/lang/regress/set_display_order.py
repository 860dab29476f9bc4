# Regression: a set display of constants iterated in insertion order; CPython builds it from
# a (merged) frozenset constant, which can change the order when hashes collide.
print({-1, -2, 7, 1000000, 31, 63, 15}, {5, 3, 17, 33, 1, 9, 100, 64, 8, -7})
print([1, 2, 3], {"only": {0, 8, 16, 24}})
