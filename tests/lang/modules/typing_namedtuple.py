# typing.NamedTuple and TypedDict as base classes (PEP 560 __mro_entries__) and as functions.
from typing import NamedTuple, TypedDict, Optional, Generic, TypeVar
class Point(NamedTuple):
    x: int
    y: int = 0
    label: Optional[str] = None
    def norm1(self):
        return abs(self.x) + abs(self.y)
p = Point(3, -4)
print(p, p.norm1(), p._replace(label="a"), Point._fields, p._asdict(), isinstance(p, tuple), Point.__annotations__)
print(Point(1), Point(1, 2, "z") == (1, 2, "z"), Point.__bases__[0].__name__ != "NamedTuple", type(p).__name__)
Pair = NamedTuple("Pair", [("a", int), ("b", str)])
print(Pair(1, "x"), Pair._fields)
class Movie(TypedDict):
    title: str
    year: int
m = Movie(title="Alien", year=1979)
print(m, m["year"], isinstance(m, dict))
T = TypeVar("T")
class Box(Generic[T]):
    def __init__(self, item: T):
        self.item = item
print(Box(5).item, Box[int].__name__ if hasattr(Box[int], "__name__") else "")
try:
    class Bad(NamedTuple):
        a: int = 1
        b: int
except TypeError as e:
    print("TypeError:", e)
