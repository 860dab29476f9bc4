# Guard programs memoise the dict reads of their steps on dict versions (a global, another
# module's global, a module attribute, an instance attribute, a parameter): a read is reused only
# while its dict is unchanged.  Every route that rebinds a guarded global must still be seen by
# the next compiled call, as eager sees it: assignment in the module, globals()[name] = ...,
# setattr on sys.modules[name], __dict__.update, del and re-add, exec in the module's namespace,
# rebinding to an equal but different object later mutated in place, and the dict changed
# between calls of a loop.  A stale memo would run the code traced for the old value.
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # the oracle runs scripts by path
import _gdv_module as gm  # noqa: E402

scale = 1.0


def own(x):
    return x * scale


def foreign(x):
    return gm.apply(x) + 0


def attr(x):
    return x * gm.factor


def boxed(x):
    return gm.boxed(x)


def show(tag, fn, x):
    # twice: the second call's guard check finds its dict reads memoised by the first's
    try:
        print(tag, fn(x).tolist(), fn(x).tolist())
    except (NameError, AttributeError) as e:
        print(tag, type(e).__name__ + ":", e)


x = torch.ones(2)
me = sys.modules[__name__]

# a bool global deciding a branch, so the code traced for one value is wrong for the other: the
# traced frame's own and another module's, flipped through every route
flag = False


def own_flag(x):
    if flag:
        return x + 100
    return x - 1


def foreign_flag(x):
    return gm.flagged(x) * 2


def set_own_flag(v):
    global flag
    flag = v


for fn, ns, mod in ((own_flag, globals(), me), (foreign_flag, gm.__dict__, gm)):
    name = fn.__name__
    show(name + " start", fn, x)
    if mod is me:
        set_own_flag(True)
    else:
        mod.flag = True
    show(name + " assign", fn, x)
    ns["flag"] = False
    show(name + " globals()", fn, x)
    setattr(sys.modules[mod.__name__], "flag", True)
    show(name + " setattr sys.modules", fn, x)
    mod.__dict__.update(flag=False)
    show(name + " __dict__.update", fn, x)
    del ns["flag"]
    show(name + " deleted", fn, x)
    ns["flag"] = True
    show(name + " re-added", fn, x)
    exec("flag = False", ns)
    show(name + " exec", fn, x)
    for i in range(5):
        ns["flag"] = i % 2 == 0
        show(name + " loop", fn, x)

# the traced frame's own global
show("own start", own, x)
scale = 2.0
show("own assign", own, x)
globals()["scale"] = 3.0
show("own globals()", own, x)
setattr(me, "scale", 4.0)
show("own setattr", own, x)
me.__dict__.update(scale=5.0)
show("own update", own, x)
del scale
show("own deleted", own, x)
scale = 6.0
show("own re-added", own, x)
exec("scale = 7.0", globals())
show("own exec", own, x)
for i in range(4):
    scale = float(i)
    show("own loop", own, x)

# a global of another module read by its function (inlined), and as a module attribute
for fn, name in ((foreign, "foreign"), (attr, "attr")):
    gm.factor = 2.0
    show(name + " start", fn, x)
    gm.set_factor(3.0)
    show(name + " assign in module", fn, x)
    gm.set_via_globals("factor", 4.0)
    show(name + " globals() in module", fn, x)
    setattr(sys.modules["_gdv_module"], "factor", 5.0)
    show(name + " setattr sys.modules", fn, x)
    gm.__dict__.update(factor=6.0)
    show(name + " __dict__.update", fn, x)
    del gm.factor
    show(name + " deleted", fn, x)
    gm.factor = 7.0
    show(name + " re-added", fn, x)
    exec("factor = 8.0", gm.__dict__)
    show(name + " exec", fn, x)
    gm.factor = 2.0 * 4.0   # equal to the last value, another object
    show(name + " equal value", fn, x)
    for i in range(4):
        gm.__dict__["factor"] = float(i)
        show(name + " loop", fn, x)
    gm.factor = 2.0

# a list global rebound to an equal but different list, then the new list mutated in place
show("offsets start", foreign, x)
old = gm.offsets
gm.offsets = [1.0]
show("offsets equal list", foreign, x)
gm.offsets[0] = 10.0
show("offsets new list mutated", foreign, x)
old[0] = 20.0
show("offsets old list mutated", foreign, x)

# an object global: its instance dict through every route, and the object rebound
show("box start", boxed, x)
gm.box.k = 4.0
show("box setattr", boxed, x)
gm.box.__dict__["k"] = 5.0
show("box __dict__", boxed, x)
vars(gm.box).update(k=6.0)
show("box vars update", boxed, x)
b2 = gm.Box()
b2.k = 6.0
gm.box = b2
show("box rebound equal", boxed, x)
b2.k = 7.0
show("box new object mutated", boxed, x)
for i in range(3):
    gm.box.k = float(i)
    show("box loop", boxed, x)

# a module's parameter replaced through its _parameters dict and by attribute
lin = torch.nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.fill_(1.0)
    lin.bias.fill_(0.0)


def model(x):
    return lin(x)


print("lin start", model(x).tolist())
lin._parameters["bias"] = torch.nn.Parameter(torch.full((1,), 5.0))
print("lin bias via _parameters", model(x).tolist())
lin.weight = torch.nn.Parameter(torch.full((1, 2), 2.0))
print("lin weight via setattr", model(x).tolist())


# a Sequential's _modules dict: keys added, removed and re-added in another order (only the
# guard on its keys sees that: every submodule the traced call read is still there)
class Add(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, t):
        return t + self.k


class Scale(torch.nn.Module):
    def forward(self, t):
        return t * 3


seq = torch.nn.Sequential(Add(1.0), Scale())


def run_seq(x):
    return seq(x)


show("seq start", run_seq, x)
seq.add_module("2", Add(10.0))
show("seq added", run_seq, x)
del seq._modules["2"]
show("seq deleted", run_seq, x)
first = seq._modules.pop("0")
seq._modules["0"] = first
show("seq reordered", run_seq, x)
seq._modules["5"] = Add(100.0)
show("seq item set", run_seq, x)
