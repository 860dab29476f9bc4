# Regression: a > b raised TypeError when the class defined only __lt__: the reflected method
# (b < a) was tried only for operands of different types.
class N:
    def __init__(self, v): self.v = v
    def __lt__(self, o): return self.v < o.v
    def __le__(self, o): return self.v <= o.v
print(N(2) > N(1), N(1) >= N(1), N(1) > N(2))
print(sorted([N(3), N(1)], key=lambda n: n).__len__(), max(N(1), N(5)).v)
