import torch

# torch.set_num_threads / get_num_threads: one setting for the intra-op pool and BLAS; results do
# not depend on it (every element is computed as one thread computes it).  The default depends
# on the machine, so it is only checked to be a positive int.
print(type(torch.get_num_threads()).__name__, torch.get_num_threads() >= 1)
print(type(torch.get_num_interop_threads()).__name__, torch.get_num_interop_threads() >= 1)

g = torch.Generator().manual_seed(0)
x = torch.randn(512, 300, generator=g)
w = torch.randn(300, 400, generator=g)
b = torch.randn(400, generator=g)


def work():
    h = torch.tanh(x @ w + b)
    e = (h * 2.0 - 1.0).exp().sigmoid()
    s = torch.softmax(e, dim=1)
    y = x.t().contiguous() * 0.5
    y += y
    return [h, e, s, y, e.sum(dim=0), s.amax(dim=1)]


results = {}
for n in (1, 2, 3, 1):
    torch.set_num_threads(n)
    print("set_num_threads", n, "->", torch.get_num_threads())
    results.setdefault(n, work())
ref = results[1]
for n in (2, 3):
    print(n, "threads, same bits as 1:", [torch.equal(a, b) for a, b in zip(ref, results[n])])
print([tuple(t.shape) for t in ref])

# arguments: an int that is not a bool, cut to a C int, then positive
for arg in (0, -1, 1.5, "2", True, None, 2**40, 2**40 + 3, -2**32 + 2):
    try:
        torch.set_num_threads(arg)
        print("set_num_threads", repr(arg), "->", torch.get_num_threads())
    except RuntimeError as e:
        print("set_num_threads", repr(arg), "RuntimeError:", e)
for call in (lambda: torch.set_num_threads(), lambda: torch.set_num_threads(1, 2),
             lambda: torch.set_num_threads(n=1), lambda: torch.get_num_threads(1),
             lambda: torch.get_num_interop_threads(1), lambda: torch.set_num_interop_threads()):
    try:
        call()
    except TypeError as e:
        print("TypeError:", e)
torch.set_num_threads(1)
print(torch.get_num_threads())

# the inter-op count: checked the same way, then set once
for arg in (0, True, 2.0):
    try:
        torch.set_num_interop_threads(arg)
    except RuntimeError as e:
        print("set_num_interop_threads", repr(arg), "RuntimeError:", e)
torch.set_num_interop_threads(3)
print(torch.get_num_interop_threads())
