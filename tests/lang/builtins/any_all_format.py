# any, all, format, repr, str, ascii, object(), slice(), frozenset/set/dict/list/tuple constructors.
print(any([]), any([0, "", 1]), all([]), all([1, "a"]), all(x > 0 for x in [1, -1]), any(iter([0, 0])))
print(format(3.14159, ".2f"), format(42), format("x", ">3"), format(255, "#x"), format(True), format(None))
print(repr("a'b"), str(3.0), str(b"x"), ascii("é€"), repr([1, "2"]), str([1, "2"]))
print(type(object()).__name__, slice(1, 5, 2), slice(3), slice(None), list(frozenset([1, 1, 2])))
print(set(), set("aab") == {"a", "b"}, dict(), dict([("a", 1)], b=2), dict(a=1), list(), list("ab"), tuple(), tuple([1, 2]))
print(dict({"k": 1}), list((1, 2)), tuple("ab"), frozenset(), bool(frozenset()), str(), int(), float(), bool())
try:
    format(1, "q")
except ValueError as e:
    print("ValueError:", e)
try:
    format("s", "d")
except ValueError as e:
    print("ValueError:", e)
try:
    dict([1, 2])
except TypeError as e:
    print("TypeError:", e)
try:
    dict([(1, 2, 3)])
except ValueError as e:
    print("ValueError:", e)
try:
    object().__setattr__("x", 1)
except AttributeError as e:
    print("AttributeError:", e)
