# PyTorch's exceptions and messages for common mistakes: broadcasting and matmul shapes,
# backward twice, modified saved tensors, implicit grad of non-scalars, in-place on leaves,
# dtype mismatches, indexing, views, conversions, argument types.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
cases = [
    ("broadcast add", lambda: torch.ones(2, 3) + torch.ones(4)),
    ("broadcast mul 3d", lambda: torch.ones(2, 3, 4) * torch.ones(3, 3)),
    ("broadcast in-place", lambda: torch.ones(3).add_(torch.ones(2, 3))),
    ("matmul 2d", lambda: torch.ones(2, 3) @ torch.ones(2, 3)),
    ("matmul 1d", lambda: torch.ones(3) @ torch.ones(4)),
    ("mm", lambda: torch.ones(2, 3).mm(torch.ones(4, 2))),
    ("mm 1d", lambda: torch.ones(3).mm(torch.ones(3, 2))),
    ("bmm", lambda: torch.ones(2, 3, 4).bmm(torch.ones(2, 5, 6))),
    ("dot", lambda: torch.ones(3).dot(torch.ones(4))),
    ("implicit grad", lambda: (x * 2).backward()),
    ("no grad_fn", lambda: torch.ones(2).sum().backward()),
    ("grad of non-scalar", lambda: torch.autograd.grad(x * 2, x)),
    ("leaf in-place", lambda: x.add_(1)),
    ("leaf in-place op", lambda: x.mul_(2)),
    ("leaf view in-place", lambda: x[0].zero_()),
    ("requires_grad int", lambda: torch.tensor([1, 2], requires_grad=True)),
    ("requires_grad_ int", lambda: torch.tensor([1, 2]).requires_grad_()),
    ("requires_grad non-leaf", lambda: setattr(x * 2, "requires_grad", False)),
    ("view bad size", lambda: torch.arange(6).view(4, 2)),
    ("view two -1", lambda: torch.arange(6).view(-1, -1)),
    ("reshape bad size", lambda: torch.arange(6).reshape(5)),
    ("view non-contiguous", lambda: torch.arange(6).reshape(2, 3).t().view(6)),
    ("index out of range", lambda: torch.arange(3)[5]),
    ("index dim out of range", lambda: torch.arange(3)[0, 0]),
    ("too many indices", lambda: torch.ones(2, 2)[0, 0, 0]),
    ("dim out of range", lambda: torch.ones(2, 2).sum(2)),
    ("transpose dim", lambda: torch.ones(2, 2).transpose(0, 3)),
    ("item of many", lambda: torch.ones(2).item()),
    ("bool of many", lambda: bool(torch.ones(2))),
    ("float of many", lambda: float(torch.ones(2))),
    ("cat shapes", lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 4)])),
    ("cat empty", lambda: torch.cat([])),
    ("stack shapes", lambda: torch.stack([torch.ones(2), torch.ones(3)])),
    ("mean of int", lambda: torch.tensor([1, 2]).mean()),
    ("mask shape", lambda: torch.ones(3)[torch.tensor([True, False])]),
    ("setitem shape", lambda: torch.ones(2, 3).__setitem__(0, torch.ones(4))),
    ("expand", lambda: torch.ones(2, 3).expand(4, 3)),
    ("ragged tensor", lambda: torch.tensor([[1, 2], [3]])),
    ("ragged longer", lambda: torch.tensor([[1], [2, 3]])),
    ("scalar where list expected", lambda: torch.tensor([[1, 2], 3])),
    ("list where scalar expected", lambda: torch.tensor([1, [2]])),
    ("list where float expected", lambda: torch.tensor([1.5, [2]])),
    ("tensor of str", lambda: torch.tensor(["a"])),
    ("tensor str", lambda: torch.tensor("a")),
    ("tensor mixed str", lambda: torch.tensor([1, "a"])),
    ("tensor None", lambda: torch.tensor(None)),
    ("tensor list of None", lambda: torch.tensor([None])),
    ("tensor dict", lambda: torch.tensor({1: 2})),
    ("tensor of tensors", lambda: torch.tensor([torch.ones(2), torch.ones(2)])),
    ("zeros requires_grad long", lambda: torch.zeros(2, dtype=torch.long, requires_grad=True)),
    ("cat non-tensor", lambda: torch.cat([torch.ones(2), 1])),
    ("stack empty", lambda: torch.stack([])),
    ("setitem column", lambda: torch.ones(2, 3).__setitem__((slice(None), 0), torch.ones(3))),
    ("setitem leading ones ok", lambda: torch.ones(2, 3).__setitem__(0, torch.ones(1, 1, 3))),
    ("setitem mask", lambda: torch.ones(2, 3).__setitem__(torch.tensor([True, False]), torch.ones(2))),
    ("setitem index", lambda: torch.ones(3).__setitem__(torch.tensor([0, 1]), torch.ones(3))),
    ("setitem more dims", lambda: torch.ones(2, 3).__setitem__(0, torch.ones(2, 3))),
    ("add str", lambda: torch.ones(2) + "a"),
    ("mul None", lambda: torch.ones(2) * None),
    ("grad assign shape", lambda: setattr(torch.ones(2, requires_grad=True), "grad", torch.ones(3))),
    ("hook on no-grad tensor", lambda: torch.ones(2).register_hook(lambda g: g)),
    ("retain_grad no-grad", lambda: torch.ones(2).retain_grad()),
    ("randint bad range", lambda: torch.randint(5, 2, (3,))),
    ("arange bad step", lambda: torch.arange(0, 10, 0)),
    ("squeeze dim", lambda: torch.ones(2).squeeze(3)),
    ("permute dims", lambda: torch.ones(2, 3).permute(0)),
    ("linspace steps", lambda: torch.linspace(0, 1, -1)),
    ("softmax dim", lambda: torch.ones(2).softmax(1)),
    ("len of 0-d", lambda: len(torch.tensor(1.0))),
    ("iter of 0-d", lambda: iter(torch.tensor(1.0))),
]
for name, fn in cases:
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])

y = (x * x).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("backward twice", e)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.exp()
b.add_(1)
try:
    b.sum().backward()
except RuntimeError as e:
    print("modified saved output", e)
c = a * 1
d = c * c
c.mul_(2)
try:
    d.sum().backward()
except RuntimeError as e:
    print("modified saved input", e)
try:
    torch.autograd.grad(a.sum(), torch.ones(2, requires_grad=True))
except RuntimeError as e:
    print("unused input", e)
try:
    (a * 2).sum().backward(torch.ones(2))
except RuntimeError as e:
    print("gradient shape", e)
try:
    torch.autograd.backward([a.sum(), a.sum()], [torch.ones(())])
except RuntimeError as e:
    print("grad_tensors length", e)
