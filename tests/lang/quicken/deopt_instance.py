# The instance-attribute forms (LOAD_ATTR_INSTANCE_VALUE, STORE_ATTR_INSTANCE_VALUE,
# LOAD_METHOD_CACHED) and LOAD_GLOBAL_MODULE, each warmed in a loop and then made wrong in the
# middle of it: the attribute deleted, a class attribute replaced by a descriptor, __getattr__ /
# __getattribute__ / __setattr__ added to the class, instances with other key orders, __slots__
# and dict-less objects at the same site, the instance dict replaced, a method shadowed by an
# instance attribute or replaced on the class, a global rebound or deleted.


class Acc:
    def __init__(self):
        self.total = 0
        self.other = 1

    def add(self, v):
        self.total += v
        return self


def run(objs, n, hook=None):
    out = []
    for i in range(n):
        o = objs[i % len(objs)]
        if hook:
            hook(i, o)
        try:
            o.add(i)
            out.append(o.total)
        except Exception as e:
            out.append(type(e).__name__ + ": " + str(e))
    return out


# 1. the attribute deleted mid-loop (load and store miss the instance dict)
def h1(i, o):
    if i == 30:
        del o.total
print(run([Acc()], 40, h1)[25:35])


# 2. a class attribute replaced by a data descriptor mid-loop
class Acc2(Acc):
    pass

def h2(i, o):
    if i == 30:
        Acc2.total = property(lambda self: -1, lambda self, v: None)
    if i == 35:
        del Acc2.total
print(run([Acc2()], 40, h2)[25:40])


# 3. __getattribute__, __getattr__ and __setattr__ added to the class later
class Acc3(Acc):
    pass

def h3(i, o):
    if i == 20:
        Acc3.__getattribute__ = lambda self, name: 100 if name == "total" else object.__getattribute__(self, name)
    if i == 25:
        del Acc3.__getattribute__
    if i == 30:
        Acc3.__setattr__ = lambda self, name, v: object.__setattr__(self, name, v * 2)
    if i == 35:
        del Acc3.__setattr__
    if i == 37:
        del o.total
        Acc3.__getattr__ = lambda self, name: 7
print(run([Acc3()], 42, h3)[18:42])


# 4. instances whose dicts hold the keys in other orders, and one with an empty dict
a, b = Acc(), Acc()
b.__dict__ = {"other": 5, "total": 1000}
c = Acc()
c.__dict__ = {}
print(run([a, b, c], 12))


# 5. __slots__ and dict-less objects at the same attribute sites
class Slotted:
    __slots__ = ("total",)

    def __init__(self):
        self.total = 0

    def add(self, v):
        self.total += v
        return self


def read_total(objs, n):
    return [objs[i % len(objs)].total for i in range(n)]


print(run([Acc(), Slotted()], 10))
print(read_total([Acc(), Slotted()], 6))
try:
    read_total([Acc(), 1.5], 4)
except AttributeError as e:
    print("AttributeError:", e)


# 6. a method shadowed by an instance attribute mid-loop, then replaced on the class
def h6(i, o):
    if i == 20:
        o.add = lambda v: o
    if i == 25:
        del o.add
    if i == 30:
        Acc.add = lambda self, v: setattr(self, "total", self.total - v) or self
print(run([Acc()], 35, h6)[15:35])


# 7. a module global rebound, deleted (the builtin then serves), and missing
def len_twice(xs):
    return len(xs) + len(xs)


def uses_g(n):
    out = []
    for i in range(n):
        if i == 5:
            globals()["G"] = "rebound"
        if i == 8:
            del globals()["G"]
        try:
            out.append(G)
        except NameError as e:
            out.append(str(e))
    return out


G = 1
print(uses_g(10))
print([len_twice([1, 2]) for _ in range(3)])
len = lambda xs: 10
print([len_twice([1, 2]) for _ in range(3)])
del len
print([len_twice([1, 2]) for _ in range(3)])
