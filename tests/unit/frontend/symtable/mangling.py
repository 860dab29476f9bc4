# Private name mangling in the symbol tables: what is mangled, with which class name.
_Box__g = 0
class _Box:
    __ = 1
    ___ = 2
    __slot = 3
    __dunder__ = 4
    import math as __m
    from math import pi as __pi
    import __pkg.sub
    def __method(self, __a, *__args, __k=1, **__kw):
        global __g
        __g = [__i for __i in __args]
        f = lambda __x: __x + __a
        try:
            pass
        except Exception as __e:
            pass
        def inner():
            nonlocal __a
            __a = 2
            return super()
        return f, inner
    class __Nested:
        __deep = 1
        def get(self):
            return self.__deep, __deep
class ___:
    __plain = 1
