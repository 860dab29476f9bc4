# Custom Functions nested: one applied inside another's forward (both traced into the graph) and
# one applied inside a backward (the outer apply is a graph break: one backward is recorded at a
# time), compiled and eager agree.
import torch
class Inner(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x
class Outer(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return Inner.apply(x) + 1.0
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return Inner.apply(g) * x
def f(x):
    return Outer.apply(x.sin()).sum()
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
for c in [False, True]:
    fn = torch.compile(f) if c else f
    l = fn(x); l.backward(); print(c, round(l.item(), 4), [round(v, 4) for v in x.grad.tolist()]); x.grad = None
