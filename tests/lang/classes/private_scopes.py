# Private name mangling across scopes: global and nonlocal declarations, except-handler and
# import-as names, nested classes (whose own name is mangled with the *enclosing* class),
# error messages (which name the mangled variable), and super()/__class__ alongside.

# global: `global __counter` inside class G declares the module global `_G__counter`
_G__counter = 0
class G:
    def bump(self):
        global __counter
        __counter += 1
        return __counter
    def read(self):
        return __counter          # no declaration: still the global `_G__counter`
G().bump(); G().bump()
print(_G__counter, G().read(), "__counter" in globals())

# nonlocal
class N:
    def make(self):
        __n = 0
        def step():
            nonlocal __n
            __n += 1
            return __n
        return step
s = N().make()
s(); print(s(), s.__code__.co_freevars)

# except-handler names are mangled, and unbound after the handler like any other
class E:
    def run(self):
        try:
            raise ValueError("boom")
        except ValueError as __err:
            seen = repr(__err)
        try:
            __err
        except NameError as e:
            return seen, type(e).__name__, str(e)
    try:
        1 / 0
    except ZeroDivisionError as __body_err:
        caught = type(__body_err).__name__
print(E().run(), E.caught, hasattr(E, "_E__body_err"))

# import ... as __name and from ... import ... as __name bind the mangled name
class I:
    import math as __m
    from math import pi as __pi, floor as __floor
    def use(self):
        return self.__m.sqrt(16), round(self.__pi, 2), self.__floor(2.5)
print(I().use(), sorted(k for k in vars(I) if k.startswith("_I")))

# a nested class binds `_Outer__Inner`; inside it, `__z` is `_Inner__z` (leading underscores of
# the class name are stripped); its __name__ and __qualname__ keep the written name
class Outer:
    class __Inner:
        __z = "z"
        def get(self):
            return self.__z
    def make(self):
        return self.__Inner()
inner = Outer().make()
print(inner.get(), type(inner).__name__, type(inner).__qualname__)
print(sorted(k for k in vars(Outer) if not k.endswith("__")), sorted(k for k in vars(Outer._Outer__Inner) if not k.endswith("__")))
class __TopLevel:                 # at module level the class name itself is not mangled
    def __init__(self):
        self.__v = 1
print(sorted(vars(globals()["__TopLevel"]())))
class ___:                        # a class name of underscores only: nothing is mangled
    __kept = 1
print(hasattr(___, "__kept"))
class _Lead:
    __y = 1
print(hasattr(_Lead, "_Lead__y"))

# a class defined inside a method uses its own name
class Factory:
    def build(self):
        class Product:
            def __init__(self):
                self.__part = 1
        self.__made = Product()
        return sorted(vars(self.__made)), sorted(vars(self))
print(Factory().build())

# errors name the mangled variable
class Errs:
    def undefined(self):
        return __nowhere
    def unbound(self):
        print(__later)
        __later = 1
for m in (Errs().undefined, Errs().unbound):
    try:
        m()
    except NameError as e:
        print(type(e).__name__, e)

# super() and __class__ still work, and super().__m looks up the *current* class's mangling
class P:
    def __secret(self):
        return "P secret"
    def call(self):
        return self.__secret()
class Q(P):
    def __secret(self):
        return "Q secret"
    def both(self):
        try:
            super().__secret()
        except AttributeError as e:
            missing = str(e)
        return self.call(), self.__secret(), super()._P__secret(), missing, __class__.__name__
print(Q().both())

# class-level annotations are recorded under the mangled name
class Ann:
    __typed: int = 3
    __only: str
print(Ann.__annotations__, Ann._Ann__typed)
