class A:
    pass
class B(A):
    x = 1
    def __init__(self, v):
        self.v = v
    def method(self):
        return self.v
class C(A, B, metaclass=Meta):
    pass
class D(*bases, **kw):
    pass
class E():
    pass
@decorator
class F:
    @staticmethod
    def s():
        pass
    @classmethod
    def c(cls):
        return cls()
    @property
    def p(self):
        return self._p
    @p.setter
    def p(self, value):
        self._p = value
class G(Base):
    def __init__(self):
        super().__init__()
        self.__private = 1
    def __repr__(self):
        return f"G({self.__private!r})"
    class Inner:
        pass
