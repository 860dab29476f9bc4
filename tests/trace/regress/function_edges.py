# Custom Functions traced into the graph, edge cases: an output that is an argument returned unmarked
# (a new tensor, not the argument), a non-tensor output, a tensor saved that the forward made, an
# integer output (never requires grad), no_grad around the call, an argument that does not
# require grad; the same in every mode as in PyTorch.
import torch


class Ident(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, n):
        return x, n * 2

    @staticmethod
    def backward(ctx, g, gn):
        return g * 3.0, None


class Saver(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class IntOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return (x > 0).long(), x * 2.0

    @staticmethod
    def backward(ctx, gi, g):
        return g * 2.0


def f(x, w):
    a, n = Ident.apply(x, 3)
    b = Saver.apply(a * w)
    i, c = IntOut.apply(b)
    return (a is x), n, i, (c * a).sum(), a.requires_grad, i.requires_grad


x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
w = torch.tensor([1.5, 0.25, -2.0], requires_grad=True)
with torch.no_grad():
    print("no_grad", [r if not isinstance(r, torch.Tensor) else r.tolist() for r in f(x, w)[:3]])
for step in range(2):
    r = f(x, w)
    r[3].backward()
    print(step, r[0], r[1], r[2].tolist(), round(r[3].item(), 4), r[4], r[5], [round(v, 4) for v in x.grad.tolist()], [round(v, 4) for v in w.grad.tolist()])
    x.grad = None
    w.grad = None
x2 = torch.tensor([0.5, -1.0, 2.0])
r = f(x2, w)
print("x no grad", r[4], round(r[3].item(), 4))
