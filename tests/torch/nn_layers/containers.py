# Sequential (indexing incl. negative and slices, len, iteration, append, insert, extend, del,
# setitem, named entries, +), ModuleList (append, extend, insert, +=, slices, del renumbering,
# pop), ModuleDict (mapping operations, update, pop), and their index and type errors.
import collections
import torch
import torch.nn as nn


def names(m):
    return [n for n, _ in m.named_children()]


def kinds(m):
    return [type(c).__name__ for c in m]


seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
print("len", len(seq), "iter", kinds(seq), "names", names(seq))
print("index", type(seq[0]).__name__, type(seq[-1]).__name__, type(seq[-3]).__name__)
sl = seq[1:]
print("slice", type(sl).__name__, names(sl), kinds(sl), sl[0] is seq[1])
for bad in (3, -4):
    try:
        seq[bad]
    except IndexError as e:
        print("IndexError", e)
seq.append(nn.Tanh())
seq.insert(1, nn.Sigmoid())
print("append/insert", names(seq), kinds(seq))
seq.extend([nn.Identity(), nn.Identity()])
print("extend", kinds(seq))
del seq[1]
print("del renumbers", names(seq), kinds(seq))
del seq[-2:]
print("del slice", names(seq), kinds(seq))
seq[1] = nn.GELU()
print("setitem", kinds(seq))
print("forward", seq(torch.ones(1, 2)).shape)
popped = seq.pop(1)
print("pop", type(popped).__name__, kinds(seq))
both = nn.Sequential(nn.ReLU()) + nn.Sequential(nn.Tanh(), nn.Sigmoid())
print("add", kinds(both), names(both))
named = nn.Sequential(collections.OrderedDict([("enc", nn.Linear(1, 2)), ("act", nn.ReLU())]))
print("named", names(named), type(named[1]).__name__, type(named.enc).__name__)
print("empty", len(nn.Sequential()), nn.Sequential()(torch.ones(1)).tolist())

ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(2)])
ml.append(nn.ReLU())
ml.extend([nn.Tanh()])
ml += [nn.Sigmoid()]
ml.insert(0, nn.Identity())
print("modulelist", len(ml), kinds(ml), names(ml))
print("slice", kinds(ml[1:3]), type(ml[1:3]).__name__, "neg", type(ml[-1]).__name__)
del ml[0]
print("del renumbers", names(ml), kinds(ml))
print("pop", type(ml.pop(-1)).__name__, len(ml))
ml[0] = nn.GELU()
print("setitem", kinds(ml))
try:
    ml[10]
except IndexError as e:
    print("IndexError", e)
try:
    ml.extend(5)
except TypeError as e:
    print("TypeError", e)
print("params", len(list(ml.parameters())))
print("added", kinds(nn.ModuleList([nn.ReLU()]) + nn.ModuleList([nn.Tanh()])))

md = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.ReLU()})
md["c"] = nn.Tanh()
md.update([("d", nn.Sigmoid())])
md.update({"a": nn.Identity()})
print("moduledict", len(md), list(md.keys()), [type(v).__name__ for v in md.values()], list(md))
print("contains", "c" in md, "z" in md, [k for k, v in md.items()])
print("pop", type(md.pop("b")).__name__, list(md.keys()))
del md["c"]
print("del", list(md.keys()))
try:
    md["zz"]
except KeyError as e:
    print("KeyError", e)
try:
    md.update([("x", nn.ReLU(), 3)])
except ValueError as e:
    print("ValueError", e)
md.clear()
print("cleared", len(md))
