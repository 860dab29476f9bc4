# Private name mangling: inside a class, `__name` means `_Class__name` (attributes, variables,
# methods, nested classes), so two classes of a hierarchy that both use `self.__x` keep two
# attributes.  Before mangling was implemented they silently shared one.
class Base:
    def __init__(self):
        self.__x = "base"
    def base_x(self):
        return self.__x
class Derived(Base):
    def __init__(self):
        super().__init__()
        self.__x = "derived"
    def derived_x(self):
        return self.__x
d = Derived()
print(d.base_x(), d.derived_x(), d._Base__x, d._Derived__x)
print(sorted(vars(d)))
try:
    d.__x
except AttributeError as e:
    print(type(e).__name__, e)

# attribute load, store, augmented store, delete and method calls
class Account:
    def __init__(self, balance):
        self.__balance = balance
        self.__log = []
    def __record(self, what):
        self.__log.append(what)
    def deposit(self, n):
        self.__balance += n
        self.__record("deposit %d" % n)
        return self.__balance
    def close(self):
        del self.__balance
        return hasattr(self, "_Account__balance")
    def log(self):
        return self.__log
a = Account(10)
print(a.deposit(5), a.log(), a._Account__balance)
print(a.close(), sorted(vars(a)))
print("_Account__record" in Account.__dict__, "__record" in Account.__dict__)
print(Account._Account__record.__name__, Account._Account__record.__qualname__)
try:
    a.__record("x")
except AttributeError as e:
    print(type(e).__name__, e)
other = Account(1)
other._Account__balance = 100   # from outside, the mangled name is an ordinary attribute
print(other.deposit(1))

# names in the class body itself: store, load, delete, default values, decorators
def _Config__wrap(f):
    f.wrapped = True
    return f
class Config:
    __default = 7
    __temp = 1
    doubled = __default * 2
    del __temp
    def get(self, v=__default):
        return v
    @__wrap
    def decorated(self):
        return "decorated"
print(Config.doubled, Config().get(), Config._Config__default, hasattr(Config, "_Config__temp"))
print(Config.decorated.wrapped, Config().decorated())
print(sorted(k for k in vars(Config) if not k.endswith("__")))

# other objects' private attributes from inside a class, and f-strings
class Peer:
    def __init__(self, v):
        self.__v = v
    def same(self, other):
        return self.__v == other.__v
    def show(self):
        return f"<{self.__v}>"
print(Peer(1).same(Peer(1)), Peer(1).same(Peer(2)), Peer(3).show())

# getattr/setattr/hasattr/delattr take strings, which are never mangled
class Strings:
    def __init__(self):
        self.__hidden = 1
    def probe(self):
        setattr(self, "__plain", 2)
        return (hasattr(self, "__hidden"), getattr(self, "_Strings__hidden"),
                getattr(self, "__plain"), sorted(vars(self)))
print(Strings().probe())

# dunder names and names of underscores only are left alone; a single underscore too
class Specials:
    __ = "two"
    ___ = "three"
    _single = "one"
    __dunder__ = "dunder"
    def __init__(self):
        self.__trailing_ = "trailing"
print(Specials.__, Specials.___, Specials._single, Specials.__dunder__)
print(sorted(k for k in vars(Specials()) ))

# outside any class nothing is mangled
__module_private = "module"
def outside():
    __local = "local"
    return __local, __module_private
print(outside(), "__module_private" in globals())
class Holder:
    pass
def plain_method(self):
    self.__set = 1      # a function defined outside the class: no mangling
Holder.plain_method = plain_method
h = Holder()
h.plain_method()
print(sorted(vars(h)))
