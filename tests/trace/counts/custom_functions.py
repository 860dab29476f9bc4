# Custom torch.autograd.Function calls compile to one graph with no break (issue 14, Deliver 2),
# as dynamo traces them (autograd_function_apply): forward inlined, ctx.save_for_backward,
# ctx.<attr>, mark_dirty, mark_non_differentiable, set_materialize_grads, needs_input_grad,
# @once_differentiable and the user's backward in the compiled backward.  Each case runs once
# through torch._dynamo.explain (one graph, no break asserted), then its gradients are taken.
# The expected output was recorded from PyTorch (run_oracle.py), where torch._dynamo does not
# exist and each case runs eagerly: the printed values are eager's.
import torch
from torch.autograd.function import once_differentiable

try:
    import torch._dynamo as dynamo
except ImportError:
    dynamo = None


def show(v):
    if isinstance(v, torch.Tensor):
        return [round(x, 4) for x in v.reshape(-1).tolist()]
    if isinstance(v, (list, tuple)):
        return type(v)(show(x) for x in v)
    return v


def one_graph(name, fn, *args):
    if dynamo is None:
        out = fn(*args)
    else:
        results = []

        def run(*a):
            results.append(fn(*a))

        e = dynamo.explain(run)(*args)
        reasons = [r.reason for r in e.break_reasons]
        assert e.graph_count == 1 and e.graph_break_count == 0, (name, e.graph_count, reasons)
        out = results[0]
    print(name, show(out))
    return out


def grads(name, out, *leaves):
    outs = out if isinstance(out, tuple) else (out,)
    loss = sum((o * (k + 1)).sum() for k, o in enumerate(outs) if isinstance(o, torch.Tensor) and o.requires_grad)
    loss.backward()
    print("  grads", name, [show(t.grad) for t in leaves])
    for t in leaves:
        t.grad = None


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k, shift):
        ctx.k = k
        ctx.save_for_backward(x, shift)
        return x * k + shift

    @staticmethod
    def backward(ctx, g):
        x, shift = ctx.saved_tensors
        return g * ctx.k + x * 0.25, None, g * shift


class TwoOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = (x > 0).float()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x)
        return x.sin(), idx

    @staticmethod
    def backward(ctx, g, g_idx):
        (x,) = ctx.saved_tensors
        return g * x.cos()


class Inplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2.0)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2.0


class NeedsGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        ctx.flags = ctx.needs_input_grad
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g * b if ctx.needs_input_grad[0] else None
        gb = g * a if ctx.needs_input_grad[1] else None
        return ga, gb


class NoMaterialize(torch.autograd.Function):
    # its backward reads no gradient: absent ones (None) cannot change what it computes
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x * 2.0, x * 3.0

    @staticmethod
    def backward(ctx, g1, g2):
        (x,) = ctx.saved_tensors
        return x.cos()


class NoneTest(torch.autograd.Function):
    # reads its gradients and tests them for None: a graph break, eager runs it
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2.0, x * 3.0

    @staticmethod
    def backward(ctx, g1, g2):
        g = torch.zeros(3)
        if g1 is not None:
            g = g + g1 * 2.0
        if g2 is not None:
            g = g + g2 * 3.0
        return g


class Once(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.exp()


x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
w = torch.tensor([1.5, 0.5, -2.0], requires_grad=True)


def scale_shift(x, w):
    return ScaleShift.apply(x * 1.0, 3.0, w).tanh()


grads("save_for_backward, ctx attribute", one_graph("save_for_backward, ctx attribute", scale_shift, x, w), x, w)


def two_out(x):
    s, idx = TwoOut.apply(x + 0.5)
    return s * 2.0, idx, idx.requires_grad


out = one_graph("mark_non_differentiable", two_out, x)
grads("mark_non_differentiable", out[0], x)


def inplace(x):
    y = x * 1.0
    z = Inplace.apply(y)
    return z + 1.0, z is y


out = one_graph("mark_dirty", inplace, x)
grads("mark_dirty", out[0], x)


def needs(x, c):
    return NeedsGrad.apply(x, c) + 1.0


c = torch.tensor([2.0, 3.0, 4.0])
grads("needs_input_grad", one_graph("needs_input_grad", needs, x, c), x)


def no_materialize(x):
    a, b = NoMaterialize.apply(x)
    return a.sum() * 1.0


grads("set_materialize_grads(False)", one_graph("set_materialize_grads(False)", no_materialize, x), x)


def none_test(x):
    a, b = NoneTest.apply(x)
    return a.sum() * 1.0


grads("gradients tested for None", torch.compile(none_test)(x), x)


def once(x):
    return Once.apply(x * 0.5)


grads("once_differentiable", one_graph("once_differentiable", once, x), x)
y = torch.compile(once)(x)
g, = torch.autograd.grad((y * y).sum(), x, create_graph=True)
print("  create_graph through once_differentiable:", g.requires_grad)
try:
    g.sum().backward()
except RuntimeError as e:
    print("  RuntimeError", e)


@torch.autograd.graph.disable_saved_tensors_hooks("saved-tensor hooks are off here")
def no_hooks(x):
    return x * 2.0


print("disable_saved_tensors_hooks as a decorator", show(torch.compile(no_hooks)(x)))
try:
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        no_hooks(x)
except RuntimeError as e:
    print("  RuntimeError", e)
