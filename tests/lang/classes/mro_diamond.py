# Cooperative multiple inheritance: a diamond of __init__ methods passing keyword arguments up
# with super(), attribute lookup order, and overriding properties and class attributes.
class Base:
    def __init__(self, **kw):
        print("Base", sorted(kw))
        self.base = True
class Left(Base):
    side = "left"
    def __init__(self, left=0, **kw):
        print("Left", left)
        super().__init__(**kw)
        self.left = left
class Right(Base):
    side = "right"
    def __init__(self, right=0, **kw):
        print("Right", right)
        super().__init__(**kw)
        self.right = right
class Bottom(Left, Right):
    def __init__(self, **kw):
        print("Bottom")
        super().__init__(**kw)
b = Bottom(left=1, right=2)
print(b.left, b.right, b.base, b.side, [c.__name__ for c in Bottom.__mro__])
class P:
    @property
    def value(self): return "P.value"
class Q(P):
    @property
    def value(self): return "Q+" + super().value
print(Q().value)
class Shared:
    items = []
    def add(self, x): self.items.append(x)
s1, s2 = Shared(), Shared()
s1.add(1); s2.add(2)
print(Shared.items, s1.items is s2.items)
class Counter:
    n = 0
    def inc(self): self.n += 1
c = Counter(); c.inc(); c.inc()
print(c.n, Counter.n, c.__dict__)
