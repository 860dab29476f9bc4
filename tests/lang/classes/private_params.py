# Private name mangling of parameters, lambdas and comprehensions: `def f(self, __a)` inside
# class C has the parameter `_C__a` (co_varnames, __kwdefaults__, __annotations__), so a
# call site's keyword `__a=` (never mangled) does not match it.
class C:
    def f(self, __a, *__rest, __k=10, **__kw):
        return __a, __rest, __k, __kw
    def g(self, __p: int, *, __q: str = "q") -> list:
        return [__p, __q]
    scale = lambda __v: __v * 2
    def comps(self, n):
        squares = [__i * __i for __i in range(n)]
        table = {__k: __v for __k, __v in zip("ab", range(2))}
        evens = {__e for __e in range(n) if __e % 2 == 0}
        total = sum(__t for __t in range(n))
        return squares, table, sorted(evens), total
    listed = [__j for __j in range(3)]   # a comprehension in the class body

code = C.f.__code__
print(code.co_varnames, code.co_argcount, code.co_kwonlyargcount)
print(C.f.__kwdefaults__, C.g.__kwdefaults__)
print(C.g.__annotations__)
print(C().f(1, 2, 3, x=4))
print(C().f(1, _C__k=5, _C__extra=6))
try:
    C().f(__a=1)   # keyword names at a call site are not mangled: `__a` is not `_C__a`
except TypeError as e:
    print(type(e).__name__, e)
print(C().f(0, __a=1))   # ... so it lands in **_C__kw
try:
    C().g(__p=1)
except TypeError as e:
    print(type(e).__name__, e)
print(C().g(_C__p=3), C.scale(4), C.scale.__code__.co_varnames)
print(C().comps(4), C.listed)

# keyword arguments at call sites inside a class stay as written
def outside(__a, **kw):
    return __a, kw
class Caller:
    def call(self):
        return dict(__k=1), outside(__a=2, __b=3)
print(Caller().call())

# a nested function inherits the private name of its class, at any depth
class Nest:
    def outer(self):
        __shared = "shared"
        def inner(__arg):
            return [__shared + __arg + __x for __x in "yz"]
        return inner("-"), inner.__code__.co_varnames, inner.__code__.co_freevars
print(Nest().outer())
