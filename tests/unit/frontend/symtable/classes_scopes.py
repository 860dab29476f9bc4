x = "global"
def f():
    x = "enclosing"
    y = "y"
    class C:
        print(x)
        x = "class"
        z = y
        def m(self):
            return x, y
        def n(self):
            return __class__
        def o(self):
            return super().o()
        w = [x for _ in range(2)]
        v = [y for _ in range(2)]
    return C

class Outer:
    a = 1
    class Inner:
        b = a if False else 2
        def get(self):
            return b
    def method(self):
        return a

class Mangled:
    __secret = 1
    def __hidden(self, __arg):
        __local = __arg
        return self.__secret, __local
    def _Mangled__explicit(self):
        return __builtins__
    def __dunder__(self):
        return 1

def func_with_class_keyword():
    meta = type
    class K(object, metaclass=meta):
        pass
    return K

class Decorated:
    @staticmethod
    def s(a, b):
        return a
    @property
    def p(self):
        def helper():
            return self
        return helper
