# Regression: d.keys(), d.values() and d.items() were snapshots in compiled code (issue 14,
# defect 4): `k = d.keys(); d["b"] = 2; len(k)` was 1 compiled, 2 eager, within the region and
# after it.  Views are live, and so is iteration over a dict: a value stored for a later key is
# seen, and a change of size during iteration raises as in eager, also across a graph break.
import torch


@torch.compile
def views(x, d):
    k = d.keys(); v = d.values(); it = d.items()
    d["b"] = 2
    return x + len(k) + len(v) + len(it), k, v, it


d = {"a": 1}
y, k, v, it = views(torch.zeros(1), d)
print(y.tolist(), len(k), list(k), list(v), list(it))
d["c"] = 3
print(len(k), list(k), list(v), list(it), "b" in k, 3 in v, ("c", 3) in it)


@torch.compile
def new_dict_views(x):
    d = {"p": x, "q": x * 2}
    keys = d.keys()
    vals = d.values()
    d["r"] = x * 3
    total = x * 0
    for t in vals:
        total = total + t
    return total, sorted(keys), len(vals), "r" in keys, d


total, keys, n, has_r, nd = new_dict_views(torch.ones(2))
print(total.tolist(), keys, n, has_r, sorted(nd))


@torch.compile
def values_seen_live(x, d):
    out = x * 0
    for key, val in d.items():
        if key == "a":
            d["c"] = val * 10
        out = out + val
    return out


d = {"a": torch.ones(2), "b": torch.ones(2) * 2, "c": torch.ones(2) * 3}
print(values_seen_live(torch.zeros(2), d).tolist(), {k: v.tolist() for k, v in d.items()})


@torch.compile
def grows_while_iterating(x, d):
    for key in d:
        d[key + "!"] = x
    return x


try:
    grows_while_iterating(torch.zeros(1), {"a": 1})
except RuntimeError as e:
    print("RuntimeError:", e)


@torch.compile
def grows_then_breaks(x, d):
    for key in d:
        x = x + d[key]
        d["new"] = 0
        print("visited", key)
    return x


try:
    grows_then_breaks(torch.zeros(1), {"a": 1, "b": 2})
except RuntimeError as e:
    print("RuntimeError:", e)


@torch.compile
def break_in_dict_loop(x, d):
    for key, val in d.items():
        x = x + val
        print("visited", key)
    return x


print(break_in_dict_loop(torch.zeros(1), {"a": 1, "b": 2, "c": 3}).tolist())
