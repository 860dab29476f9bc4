# Regression: saved-tensor hooks and compiled code (issue 14, defects 2 and 3).
# - A pack hook that computes a tensor (t * 1, t.clone(), a tuple holding t.detach().clone())
#   gave zero gradients: the hook's own frame was compiled from inside the op that saves, and the
#   op observer only recorded ops at depth 0, so its result became a constant of the fake's zeros.
# - The pack hook ran once more on the call that traced: the fake ops saved tensors for backward
#   with the hooks of the enclosing saved_tensors_hooks context active.
import torch

log = []


def pack_mul(t):
    log.append("pack")
    return t * 1


def pack_clone(t):
    log.append("pack")
    return t.clone()


def pack_detach(t):
    log.append("pack")
    return t.detach()


def pack_tuple(t):
    log.append("pack")
    return ("tag", t.detach().clone(), True)


def unpack(p):
    log.append("unpack")
    return p


def unpack_tuple(p):
    log.append("unpack")
    return p[1]


def inside(pack, unpack_fn):
    @torch.compile
    def f(x):
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack_fn):
            y = (x * x).sin()
        return y.sum()
    return f


def around(x):
    return ((x * x).sin() * x).sum()


around_compiled = torch.compile(around)

for pack, unpack_fn in [(pack_mul, unpack), (pack_clone, unpack), (pack_detach, unpack), (pack_tuple, unpack_tuple)]:
    f = inside(pack, unpack_fn)
    for call in range(2):
        x = torch.tensor([0.5, 1.0, -2.0], requires_grad=True)
        f(x).backward()
        print(pack.__name__, "inside", call, log, [round(v, 4) for v in x.grad.tolist()])
        log.clear()
    for call in range(2):
        x = torch.tensor([0.5, 1.0, -2.0], requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack_fn):
            out = around_compiled(x)
        out.backward()
        print(pack.__name__, "around", call, log, [round(v, 4) for v in x.grad.tolist()])
        log.clear()


def twice(x):
    return (x * x).sum()


twice_compiled = torch.compile(twice)
for call in range(3):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack_mul, unpack):
        y = twice_compiled(x)
    y.backward()
    print("first call and after", call, log, x.grad.tolist())
    log.clear()
