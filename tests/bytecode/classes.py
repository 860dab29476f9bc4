class Base:
    scale = 2
    def __init__(self, v):
        self.v = v
    @property
    def doubled(self):
        return self.v * self.scale
class Child(Base):
    def __init__(self, v, w):
        super().__init__(v)
        self.w = w
    @staticmethod
    def make():
        return Child(1, 2)
