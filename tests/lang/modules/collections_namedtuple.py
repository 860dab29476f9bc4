# collections.namedtuple: construction, fields, _asdict/_replace/_make, defaults, repr, errors.
from collections import namedtuple
Point = namedtuple("Point", "x y")
p = Point(1, y=2)
print(p, p.x, p.y, p[0], p[-1], len(p), tuple(p), p == (1, 2), isinstance(p, tuple), hash(p) == hash((1, 2)))
print(Point._fields, p._asdict(), p._replace(y=5), Point._make([3, 4]), Point.__name__, type(p).__name__)
x, y = p
print(x + y, sorted([Point(2, 1), Point(1, 2)]), Point.__doc__, Point.x.__doc__, Point.__module__)
Color = namedtuple("Color", ["r", "g", "b"], defaults=[0, 255])
print(Color(1), Color(1, 2), Color(1, 2, 3), Color._field_defaults, Color(r=9))
class Vec(namedtuple("Vec", "a b")):
    def norm1(self):
        return abs(self.a) + abs(self.b)
v = Vec(-3, 4)
print(v, v.norm1(), v._replace(a=0), v + (5,))
R = namedtuple("R", "a, b, c", rename=False)
print(R(1, 2, 3), namedtuple("S", ["def", "ok"], rename=True)._fields)
for bad in [lambda: Point(1), lambda: Point(1, 2, 3), lambda: Point(1, 2, z=3), lambda: Point(1, x=2),
            lambda: p._replace(z=1), lambda: Point._make([1]), lambda: namedtuple("Bad", "x x"),
            lambda: namedtuple("Bad", "_x"), lambda: namedtuple("Bad", "1x"), lambda: setattr(p, "x", 5)]:
    try:
        bad()
    except (TypeError, ValueError, AttributeError) as e:
        print(type(e).__name__ + ":", e)
