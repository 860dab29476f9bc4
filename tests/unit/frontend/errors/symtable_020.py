class C:
    def f(self, __x, __x): pass
