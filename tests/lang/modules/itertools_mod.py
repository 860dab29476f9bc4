# itertools: infinite iterators, chains, slices, accumulations, combinatorics, grouping.
import itertools as it
from itertools import islice, count, chain, product, accumulate
print(list(islice(count(), 5)), list(islice(count(10, 2.5), 3)), list(islice(it.cycle("ab"), 5)), list(it.repeat("x", 3)))
print(list(chain([1, 2], "ab", (3,))), list(chain.from_iterable([[1], [2, 3]])), list(chain()))
print(list(islice("abcdefg", 2)), list(islice("abcdefg", 2, 4)), list(islice("abcdefg", 1, None, 2)), list(islice(range(10), 0, 9, 3)))
print(list(accumulate([1, 2, 3, 4])), list(accumulate([1, 2, 3], lambda a, b: a * b)), list(accumulate([1, 2], initial=100)), list(accumulate([])))
print(list(product("ab", [0, 1])), list(product(range(2), repeat=2)), list(product()))
print(list(it.permutations("abc", 2)), list(it.permutations(range(3))), list(it.combinations("abcd", 2)))
print(list(it.combinations_with_replacement("ab", 2)), list(it.combinations(range(3), 4)), list(it.permutations([], 0)))
print([(k, list(g)) for k, g in it.groupby("aaabbcaa")], [(k, len(list(g))) for k, g in it.groupby([1, 3, 2, 4, 5], key=lambda x: x % 2)])
print(list(it.zip_longest("abc", [1], fillvalue="-")), list(it.pairwise("abcd")), list(it.starmap(pow, [(2, 3), (3, 2)])))
print(list(it.takewhile(lambda x: x < 3, [1, 2, 5, 1])), list(it.dropwhile(lambda x: x < 3, [1, 2, 5, 1])))
print(list(it.filterfalse(lambda x: x % 2, range(6))), list(it.compress("abcdef", [1, 0, 1, 0, 1, 1])))
a, b = it.tee([1, 2, 3])
print(list(a), list(b), [list(t) for t in it.tee("xy", 3)])
for bad in [lambda: list(islice("abc", -1)), lambda: list(islice("abc", 0, 5, 0)), lambda: list(product("a", repeat=-1))]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__ + ":", e)
