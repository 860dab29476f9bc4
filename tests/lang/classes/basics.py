# Class statement: class attributes, instance attributes, methods, __init__, __dict__.
class Point:
    "A 2-D point."
    dims = 2
    def __init__(self, x, y):
        self.x = x
        self.y = y
    def norm2(self):
        return self.x ** 2 + self.y ** 2
p = Point(3, 4)
print(p.norm2(), Point.dims, p.dims, Point.__doc__, Point.__name__, Point.__module__)
print(p.__dict__, type(p) is Point, p.__class__.__name__, isinstance(p, Point))
p.dims = 3
print(p.dims, Point.dims)
Point.dims = 5
q = Point(0, 0)
print(q.dims, p.dims)
del p.dims
print(p.dims)
print(Point.norm2(p), Point.__qualname__, sorted(k for k in Point.__dict__ if not k.startswith("__")))
class Empty:
    pass
e = Empty()
e.anything = 1
print(e.anything, Empty.__bases__, Empty.__mro__)
class Counter:
    count = 0
    def __init__(self):
        Counter.count += 1
Counter(); Counter()
print(Counter.count)
