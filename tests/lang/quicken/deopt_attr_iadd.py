# `obj.name += v` fused into one instruction (LOAD_FAST_ATTR_IADD_INT, opcodes.def note [14])
# once its load, add and store have specialised, then made wrong in the middle of a warm loop:
# the value or the operand no longer a small int (float, str, None, an unbound local, int
# overflow into a big int), __setattr__ / a property / __getattr__ added to the class, the
# attribute deleted, __class__ assigned, the instance dict replaced with other key orders,
# __slots__ objects and other types at the same site, a generator doing the same statement.
# Each failure must leave the result and the exception (with its line) as without fusion.
import sys


class Acc:
    def __init__(self):
        self.total = 0
        self.other = 1

    def add(self, v):
        self.total += v
        return self

    def bump(self):
        self.total += 1
        return self


def run(objs, n, hook=None, step=None):
    out = []
    for i in range(n):
        o = objs[i % len(objs)]
        v = i if step is None else step(i)
        if hook:
            hook(i, o)
        try:
            o.add(v)
            out.append(o.total)
        except Exception as e:
            out.append("%s: %s (line %d)" % (type(e).__name__, e, sys.exc_info()[2].tb_next.tb_lineno))
    return out


# 1. the value stops being a small int: a float, then a str (TypeError), then overflow
def h1(i, o):
    if i == 20:
        o.total = 0.5
    if i == 25:
        o.total = "s"
    if i == 27:
        o.total = 2 ** 62
print(run([Acc()], 32, h1)[18:32])


# 2. the operand stops being a small int, and a constant operand
print(run([Acc()], 30, step=lambda i: 1.5 if i == 22 else (None if i == 25 else i))[20:30])
print(run([Acc()], 30, step=lambda i: 2 ** 63 if i == 21 else i)[19:24])
b = Acc()
for _ in range(20):
    b.bump()
print(b.total)


# 3. an unbound operand: the fused form de-optimises and LOAD_FAST raises
def unbound(o, n):
    out = []
    for i in range(n):
        if i < 10:
            w = i
        else:
            del w
        try:
            o.total += w
        except UnboundLocalError as e:
            out.append("UnboundLocalError line %d" % sys.exc_info()[2].tb_lineno)
            w = 0
    return o.total, out
print(unbound(Acc(), 14))


# 4. __setattr__ added to the class (only the store's cache fails), then removed; a property
class Acc4(Acc):
    pass

def h4(i, o):
    if i == 20:
        Acc4.__setattr__ = lambda self, name, v: object.__setattr__(self, name, v * 10)
    if i == 23:
        del Acc4.__setattr__
    if i == 26:
        Acc4.total = property(lambda self: 5, lambda self, v: None)
    if i == 29:
        del Acc4.total
print(run([Acc4()], 34, h4)[18:34])


# 5. the attribute deleted, then __getattr__ supplies it (the store makes it an entry again)
class Acc5(Acc):
    pass

def h5(i, o):
    if i == 20:
        del o.total
    if i == 22:
        Acc5.__getattr__ = lambda self, name: 1000
print(run([Acc5()], 26, h5)[18:26])


# 6. __class__ assigned mid-loop, and instances of two types with other key orders, a
#    replaced __dict__, an empty dict and a __slots__ object at the same site
class Other:
    def __init__(self):
        self.total = 0

    add = Acc.add

def h6(i, o):
    if i == 20:
        o.__class__ = Other
    if i == 24:
        o.__class__ = Acc
print(run([Acc()], 28, h6)[18:28])

class Slotted:
    __slots__ = ("total",)

    def __init__(self):
        self.total = 0

    add = Acc.add

x, y, z = Acc(), Acc(), Acc()
y.__dict__ = {"other": 5, "total": 1000}
z.__dict__ = {}
print(run([x, y, z, Slotted(), Other()], 20))


# 7. the same statement in a generator, resumed between updates
def gen(o, n):
    for i in range(n):
        o.total += i
        yield o.total
print(list(gen(Acc(), 12)))
