# PEP 585 generic aliases of the builtin classes: repr, parameters and substitution, calls,
# base classes, unions, equality and hashing, and the TypeErrors of isinstance/issubclass and
# of subscripting non-generic classes.
def err(fn):
    try:
        print("ok:", fn())
    except Exception as e:
        print(type(e).__name__ + ":", e)
err(lambda: int[int])
class A: pass
err(lambda: A[int])
class TV:
    def __init__(self, n): self.n = n
    def __repr__(self): return "~" + self.n
    def __typing_subst__(self, arg): return arg
T = TV("T")
print(list[T], list[T].__parameters__, list[T][int], dict[str, T][int], repr(tuple[()]), list[int] == list[int], list[int] == list, hash(list[int]) == hash(list[int]))
print(list[int]([1, 2]), list[int].__mro_entries__((list[int],)), list[int] | None, type(list[int] | None).__name__)
err(lambda: isinstance([], list[int]))
err(lambda: issubclass(list, list[int]))
err(lambda: isinstance([], list[int] | None))
err(lambda: list[int][int])
err(lambda: list[T][int, str])
print(list[int].__class__.__name__, list[int].__name__, list[int].__origin__, list[int].__args__)
class MyList(list[int]): pass
print([c.__name__ for c in MyList.__mro__], MyList.__orig_bases__)
print(type[int], enumerate[str], set[int], frozenset[str], tuple[int, ...], dict[str, list[int]])
GA = type(list[int])
print(GA(list, int), GA(dict, (str, int)), GA.__module__, GA.__name__)
print(list[int] | dict[str, int], int | list[int] | None)
