# A compiled region's input that no gradient can reach (used only through detach(), a
# comparison or an integer op) gets no autograd edge from the compiled backward: the engine never
# runs what produced it (a custom Function's backward here), so its leaf's .grad stays None as in
# eager (the ember backend gave every input requiring grad an edge: the Function's backward ran
# on zeros and x.grad became zeros).
import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 3

    @staticmethod
    def backward(ctx, g):
        print("Scale.backward ran")
        return g * 3


@torch.compile
def only_detached(t, w):
    return t.detach() * 2 + w.sin()


@torch.compile
def only_compared(t, w):
    return torch.where(t > 3, w, w * 2)


@torch.compile
def both(t, w):
    return t.detach() * w + t * 0.5


x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
only_detached(Scale.apply(x), w).sum().backward()
print("detached:", x.grad, w.grad)
w.grad = None
only_compared(Scale.apply(x), w).sum().backward()
print("compared:", x.grad, w.grad)
w.grad = None
both(Scale.apply(x), w).sum().backward()
print("both:", x.grad, w.grad)
