# A def or class declared `global` where it is defined is not nested in its parent's
# qualname (CPython's compiler_set_qualname), under a function as under a class, and the
# declaration is found under the mangled name inside a class.  Ember used to check class
# parents only, and by the unmangled name.
def make():
    global made_fn, MadeClass
    def made_fn(): pass
    class MadeClass: pass
    def local_fn(): pass
    return local_fn
print(make().__qualname__, made_fn.__qualname__, MadeClass.__qualname__)
class Host:
    global __hosted
    def __hosted(self): pass
    def method(self):
        global __inner
        def __inner(): pass
        return __inner
print(_Host__hosted.__qualname__, Host().method().__qualname__, Host.method.__qualname__)
