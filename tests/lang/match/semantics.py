# Pattern matching semantics in detail: what is evaluated when and how often (the subject
# once, __eq__ for values, get() for mapping keys, getattr for class patterns), captures of
# failed cases left unbound (a failed guard keeps them), or-patterns binding names in
# different orders, star patterns in every position, mappings with **rest, sequence and
# mapping kinds of built-in types.


class Log:
    def __init__(self):
        self.events = []


log = Log()


class Value:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        log.events.append(("eq", self.v, other))
        return self.v == other


class Consts:
    ONE = Value(1)
    TWO = Value(2)


def subject():
    log.events.append("subject")
    return 2


match subject():
    case Consts.ONE:
        print("one")
    case Consts.TWO:
        print("two")
print(log.events)


def no_leak(x):
    match x:
        case [a, b] if a > b:
            return "descending", a, b
        case [c, d]:
            return "pair", c, d, "a" in locals()
    return "none"


print(no_leak([2, 1]), no_leak([1, 2]), no_leak(5))


def orders(x):
    match x:
        case (a, b, c) | [c, {"b": b}, a] | {"c": c, "a": a, "b": b}:
            return a, b, c
        case Value(v=c) | (_, _, _, c):
            return c


print(orders((1, 2, 3)), orders([3, {"b": 2}, 1]), orders({"a": 1, "b": 2, "c": 3}))
print(orders(Value(9)), orders((0, 0, 0, 4)))


def stars(x):
    match x:
        case [*front, 0, 0]:
            return "ends in zeros", front
        case [first, *mid, last]:
            return "sandwich", first, mid, last
        case [*everything]:
            return "any", everything


for s in [[1, 0, 0], [5, 6, 7, 8], [1], [], (1, 2)]:
    print(stars(s))


def wildcard_stars(x):
    match x:
        case [first, *_, last]:
            return first, last
        case [*_, single]:
            return single


print(wildcard_stars([1, 2, 3, 4]), wildcard_stars([9]), wildcard_stars("abc"))


class Tracked(dict):
    def get(self, key, default=None):
        log.events.append(("get", key))
        return super().get(key, default)


log.events.clear()
match Tracked(a=1, b=2, c=3):
    case {"a": 1, "b": x, **rest}:
        print("mapping", x, rest, type(rest).__name__)
print(log.events)


def kind(x):
    match x:
        case [a, b]:
            return "seq2", a, b
        case {"k": v}:
            return "map", v
        case str() | bytes():
            return "text"
        case _:
            return "other"


for x in ["ab", b"ab", range(2), iter([1, 2]), {1, 2}, {"k": 0}, (7, 8), [7], frozenset([1, 2])]:
    print(type(x).__name__, kind(x))


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __getattribute__(self, name):
        if not name.startswith("__"):
            log.events.append(("getattr", name))
        return object.__getattribute__(self, name)


log.events.clear()
match Point(1, 2):
    case Point(1, y=3):
        print("no")
    case Point(x, y=y):
        print("point", x, y)
print(log.events)


def builtin_self(x):
    match x:
        case bool(b):
            return "bool", b
        case int(i):
            return "int", i
        case float(f) | str(f):
            return "float-or-str", f
        case list([*items]):
            return "list", items
        case dict(d):
            return "dict", d


for x in [True, 3, 2.5, "s", [1, 2], {"a": 1}]:
    print(builtin_self(x))


class SubList(list):
    pass


print(builtin_self(SubList([7, 8])))


def nested(x):
    match x:
        case {"points": [Point(x=0, y=y0), *others]} if others:
            return "first on axis", y0, len(others)
        case {"points": [Point() as p]}:
            return "single", p.x
        case [[1, [2, [3, deep]]]]:
            return "deep", deep
        case (1 | 2) as small, (3 | 4) as mid:
            return "ranges", small, mid


log.events.clear()
print(nested({"points": [Point(0, 5), Point(1, 1)]}), nested({"points": [Point(8, 9)]}))
print(nested([[1, [2, [3, "x"]]]]), nested((2, 4)), nested((5, 4)))
match 1, 2:
    case x, y:
        print("tuple subject", x, y)
match [1, 2]:
    case (1, 2):
        print("parenthesized sequence matches a list")
match 0.0:
    case 0:
        print("0.0 == 0")
match -0.5:
    case -0.5:
        print("negative float literal")
