# The side effects of a compiled region are replayed after the graph, in program order, and
# aliases see them: attributes of existing and new objects, globals, closure cells, list and
# dict contents, deletions, hooks registered on inputs.  Recorded from PyTorch 1.13 (where
# torch.compile is the identity): compiled runs must print what eager prints.
import torch

counter = 0
log = []


class Box:
    pass


def make_adder():
    total = 0

    @torch.compile
    def add(x):
        nonlocal total
        total = total + 1
        return x + total

    return add, lambda: total


@torch.compile
def f(x, box, d):
    global counter
    counter += 1
    y = x * 2
    box.last = y
    box.n = getattr(box, "n", 0) + 1
    fresh = Box()
    fresh.a = 1
    fresh.b = y.sum()
    log.append(fresh)
    d["k"] = d.get("k", 0) + 1
    d.pop("gone", None)
    if hasattr(box, "tmp"):
        del box.tmp
    return y + counter


b = Box()
b.tmp = "x"
d = {"gone": 1}
for i in range(2):
    r = f(torch.tensor([1.0, 2.0]), b, d)
    print("r", r.tolist(), "counter", counter, "n", b.n, "last", b.last.tolist(), "hasattr tmp", hasattr(b, "tmp"))
print("log", len(log), [sorted(vars(o)) for o in log], [o.b.item() for o in log], "d", d)
add, get_total = make_adder()
print(add(torch.tensor([1.0])).tolist(), add(torch.tensor([1.0])).tolist(), get_total())
