# Regression: a custom autograd.Function whose forward breaks the graph leaked under
# --compile-all --backend ember (issue 14, defect 8; LeakSanitizer in the ASan build runs this
# file in every mode).  The apply is a graph break, the forward's own frame is compiled in two
# parts around the print, and the Function's backward runs as eager's; also a Function whose
# forward breaks called twice, its output used inside and outside a compiled region.
import torch


class Noisy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        y = x * k
        print("forward of Noisy", [round(v, 4) for v in y.tolist()])
        ctx.save_for_backward(x)
        ctx.k = k
        return y + 1.0

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ctx.k + x, None


def f(x, w):
    a = Noisy.apply(x * w, 2.0)
    b = Noisy.apply(a.sin(), 0.5)
    return (a * b).sum()


x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
w = torch.tensor([1.5, 0.25, -2.0], requires_grad=True)
for step in range(2):
    loss = f(x, w)
    loss.backward()
    print(step, round(loss.item(), 4), [round(v, 4) for v in x.grad.tolist()], [round(v, 4) for v in w.grad.tolist()])
    x.grad = None
    w.grad = None

cf = torch.compile(f)
loss = cf(x, w)
loss.backward()
print("compiled", round(loss.item(), 4), [round(v, 4) for v in x.grad.tolist()], [round(v, 4) for v in w.grad.tolist()])
