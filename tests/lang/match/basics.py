# The match statement: literal, capture, wildcard, value, group, sequence, mapping, class,
# or and as patterns, guards, and the fall-through to the next case.
def describe(x):
    match x:
        case 0:
            return "zero"
        case 1 | 2 | 3:
            return "small"
        case -1:
            return "minus one"
        case "hello":
            return "greeting"
        case None:
            return "none"
        case True:
            return "true"
        case [a]:
            return f"one item {a}"
        case [a, b, *rest]:
            return f"list {a} {b} rest={rest}"
        case {"name": n, **others}:
            return f"named {n} {others}"
        case {}:
            return "empty or other mapping"
        case str() as s if len(s) > 3:
            return f"long string {s}"
        case int(v) if v > 100:
            return f"big {v}"
        case _:
            return "other"

for v in [0, 2, -1, "hello", None, True, [9], [1, 2, 3, 4], (5, 6), {"name": "x", "k": 1}, {"q": 1}, "abcdef", 500, 50, 3.5, "ab"]:
    print(repr(v), "->", describe(v))

class Point:
    __match_args__ = ("x", "y")
    def __init__(self, x, y):
        self.x, self.y = x, y

def where(p):
    match p:
        case Point(0, 0):
            return "origin"
        case Point(x=0, y=y):
            return f"on y axis at {y}"
        case Point(x, 0):
            return f"on x axis at {x}"
        case Point(x, y) if x == y:
            return f"diagonal {x}"
        case Point():
            return "somewhere"
        case (Point(x=a) | [a, _]):
            return f"alt {a}"
for p in [Point(0, 0), Point(0, 5), Point(3, 0), Point(2, 2), Point(1, 2), [7, 8]]:
    print(where(p))
