# dataclasses: fields from annotations, defaults and default_factory, generated __init__/
# __repr__/__eq__, order, frozen, __post_init__, fields/asdict/astuple/replace.
from dataclasses import dataclass, field, fields, asdict, astuple, replace, is_dataclass, FrozenInstanceError
from typing import List
@dataclass
class Config:
    name: str
    layers: int = 2
    sizes: List[int] = field(default_factory=list)
    debug: bool = field(default=False, repr=False)
c = Config("net")
c2 = Config("net", 3, [8, 4])
print(c, c2, c == Config("net"), c != c2, c.sizes is not Config("x").sizes)
print([f.name for f in fields(Config)], asdict(c2), astuple(c2), replace(c2, layers=5), is_dataclass(c), is_dataclass(5))
print(Config.__hash__, Config.layers, Config.__init__.__qualname__)
@dataclass(order=True, frozen=True)
class Version:
    major: int
    minor: int = 0
v1, v2 = Version(1, 2), Version(1, 10)
print(v1 < v2, v1 >= v2, sorted([v2, v1]), hash(v1) == hash(Version(1, 2)), {v1: "x"}[Version(1, 2)])
try:
    v1.major = 3
except FrozenInstanceError as e:
    print("FrozenInstanceError:", e, isinstance(e, AttributeError))
@dataclass
class Derived(Config):
    extra: str = "e"
    def __post_init__(self):
        self.layers *= 10
d = Derived("d", 1)
print(d, [f.name for f in fields(d)])
@dataclass
class Point:
    x: float
    y: float
    def dist2(self):
        return self.x ** 2 + self.y ** 2
p = Point(3, 4)
print(p, p.dist2(), Point(1, 2) == Point(1, 2), Point(1, 2) == (1, 2))
for bad in [lambda: Config(), lambda: Config("a", 1, [], False, 5), lambda: Config("a", bogus=1),
            lambda: Point(1, x=2)]:
    try:
        bad()
    except TypeError as e:
        print("TypeError:", e)
try:
    @dataclass
    class Bad:
        items: list = []
except ValueError as e:
    print("ValueError:", e)
