# torch.autograd.Function subclasses: forward/backward staticmethods, apply, save_for_backward,
# saved_tensors, ctx attributes, needs_input_grad, non-tensor arguments, several outputs,
# mark_non_differentiable, mark_dirty, grad_fn naming and graph structure.
import torch


def show(name, t):
    if t is None:
        print(name, None)
    else:
        print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


x = torch.tensor([0.0, 1.0], requires_grad=True)
y = Exp.apply(x)
show("y", y)
print(y.grad_fn.name(), type(y.grad_fn).__name__, y.requires_grad, y.is_leaf)
print([(f.name() if f is not None else None, nr) for f, nr in y.grad_fn.next_functions])
print(isinstance(y.grad_fn, torch.autograd.graph.Node), isinstance(y.grad_fn, torch.autograd.function.BackwardCFunction))
y.sum().backward()
show("x.grad", x.grad)


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, scale, shift, flag=False):
        ctx.scale = scale
        ctx.flag = flag
        ctx.save_for_backward(t, shift)
        return t * scale + shift

    @staticmethod
    def backward(ctx, g):
        t, shift = ctx.saved_tensors
        print("needs_input_grad", ctx.needs_input_grad, "scale", ctx.scale, "flag", ctx.flag)
        gt = g * ctx.scale if ctx.needs_input_grad[0] else None
        gs = g.sum(0) if ctx.needs_input_grad[2] else None
        return gt, None, gs, None


a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
sh = torch.tensor([0.5, -0.5], requires_grad=True)
o = ScaleShift.apply(a, 3.0, sh, True)
o.sum().backward()
show("a.grad", a.grad)
show("sh.grad", sh.grad)
a.grad = None
o = ScaleShift.apply(a, 2, torch.zeros(2))
o.sum().backward()
show("a.grad no shift grad", a.grad)


class SplitTwo(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2, t * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("got", None if g1 is None else g1.tolist(), None if g2 is None else g2.tolist())
        return (g1 if g1 is not None else 0) * 2 + (g2 if g2 is not None else 0) * 3


t = torch.tensor([1.0, 1.0], requires_grad=True)
p, q = SplitTwo.apply(t)
print(p.grad_fn is q.grad_fn, p.output_nr, q.output_nr, p.grad_fn.name())
(p.sum() + q.sum() * 10).backward()
show("t.grad", t.grad)
t.grad = None
p, q = SplitTwo.apply(t)
p.sum().backward()
show("t.grad one output used", t.grad)


class ArgMaxWithValue(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        idx = t.argmax()
        val = t.max()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(t, idx)
        return val, idx

    @staticmethod
    def backward(ctx, g_val, g_idx):
        t, idx = ctx.saved_tensors
        grad = torch.zeros_like(t)
        grad[idx] = g_val
        return grad


m = torch.tensor([1.0, 5.0, 3.0], requires_grad=True)
val, idx = ArgMaxWithValue.apply(m)
print(val.requires_grad, idx.requires_grad, idx.item(), idx.grad_fn)
(val * 2).backward()
show("m.grad", m.grad)


class AddOneInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        t.add_(1)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, g):
        return g


base = torch.tensor([1.0, 2.0], requires_grad=True)
z = base.clone()
ver = z._version
out = AddOneInPlace.apply(z)
print(out is z, z._version - ver, z.grad_fn.name(), z.tolist())
(z * 3).sum().backward()
show("base.grad", base.grad)


class NoGradInside(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        print("grad enabled in forward", torch.is_grad_enabled(), t.requires_grad)
        return t.clone()

    @staticmethod
    def backward(ctx, g):
        print("grad enabled in backward", torch.is_grad_enabled())
        return g


k = torch.tensor([1.0], requires_grad=True)
NoGradInside.apply(k).backward()
nk = NoGradInside.apply(torch.tensor([1.0]))
print(nk.requires_grad, nk.grad_fn)
with torch.no_grad():
    wk = NoGradInside.apply(k)
print(wk.requires_grad, wk.grad_fn)


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return 2 * t * g


s = torch.tensor([3.0], requires_grad=True)
(gs,) = torch.autograd.grad(Square.apply(s), s, create_graph=True)
show("d/ds s^2", gs)
(g2,) = torch.autograd.grad(gs, s)
show("d2/ds2", g2)
s2 = torch.tensor([2.0], requires_grad=True)
sq = Square.apply(s2)
sq.backward(retain_graph=True)
sq.backward()
show("s2.grad twice (retain_graph)", s2.grad)
