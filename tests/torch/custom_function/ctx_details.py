# Custom Function details: set_materialize_grads, saved_tensors after the graph is freed, ctx attributes
# outliving backward, non-tensor outputs (backward gets None for them), forward returning its input,
# needs_input_grad with arguments that do not require grad.
import torch


class TwoOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("grads", None if g1 is None else g1.tolist(), None if g2 is None else g2.tolist())
        total = 0
        if g1 is not None:
            total = total + g1 * 2
        if g2 is not None:
            total = total + g2 * 3
        return total, None


x = torch.tensor([1.0, 2.0], requires_grad=True)
a, b = TwoOut.apply(x, True)
a.sum().backward()
print(x.grad.tolist())
x.grad = None
a, b = TwoOut.apply(x, False)
a.sum().backward()
print(x.grad.tolist())


class Saver(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.note = "kept"
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g


y = Saver.apply(x)
ctx = y.grad_fn
print(ctx.note, len(ctx.saved_tensors), ctx.saved_tensors[0] is x)
y.sum().backward()
try:
    ctx.saved_tensors
except RuntimeError as e:
    print("RuntimeError", str(e)[:60])
print(ctx.note)


class Mixed(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k, k + 1, "label"

    @staticmethod
    def backward(ctx, g, g_int, g_str):
        print("non-tensor output grads", g_int, g_str)
        return g * 2, None


t, k, s = Mixed.apply(x, 3)
print(type(k).__name__, k, s, t.requires_grad)
t.sum().backward()


class Ident(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 5


z = x.detach().clone().requires_grad_()
w = z * 1
o = Ident.apply(w)
print(o is w, o.grad_fn.name(), w.grad_fn.name())
o.sum().backward()
print(z.grad.tolist())
nz = Ident.apply(torch.ones(2))
print(nz.requires_grad, nz.grad_fn)
print(TwoOut.apply(torch.ones(1), True)[0].requires_grad)


class NoneGradIn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        print("needs", ctx.needs_input_grad)
        return a + b

    @staticmethod
    def backward(ctx, g):
        return g, g


NoneGradIn.apply(x, torch.ones(2)).sum().backward()
