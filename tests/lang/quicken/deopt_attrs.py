# Attribute caches (LOAD_ATTR / STORE_ATTR on instance dicts, LOAD_METHOD's type cache) after the
# cache warmed: class attributes changed, a property or __getattr__ appearing later, __slots__,
# attributes deleted, and instances of another class at the same site.


class P:
    kind = "class attr"

    def __init__(self, x):
        self.x = x


def read(objs):
    return [(o.x, o.kind) for o in objs]


ps = [P(i) for i in range(4)]
print(read(ps))
P.kind = "changed"
print(read(ps))
ps[1].kind = "instance"
print(read(ps))
del ps[1].kind
print(read(ps))


def read_x(o, n):
    return [o.x for _ in range(n)]


p = P(1)
print(read_x(p, 3))
P.x = property(lambda self: "property wins")
print(read_x(p, 3))
del P.x
print(read_x(p, 3))
del p.x
try:
    read_x(p, 1)
except AttributeError as e:
    print("AttributeError:", e)
P.__getattr__ = lambda self, name: "getattr " + name
print(read_x(p, 2))
del P.__getattr__


def write(o, n):
    for i in range(n):
        o.x = i
    return o.x


q = P(0)
print(write(q, 5))
log = []


def setter(self, v):
    log.append(v)


P.x = property(lambda self: "prop", setter)
print(write(q, 3), log)
del P.x
print(write(q, 3))


class S:
    __slots__ = ("x",)

    def __init__(self):
        self.x = 1


print(write(S(), 4), read_x(S(), 2))


def counter(o, n):
    for _ in range(n):
        o.n += 1
    return o.n


class C:
    def __init__(self):
        self.n = 0


c = C()
print(counter(c, 100))
c.n = 2**63 - 3
print(counter(c, 5))
c.n = 0.5
print(counter(c, 3))
