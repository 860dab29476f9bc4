# Regression: under --compiled-autograd a tensor hook registered by another hook during the
# backward never fired (issue 14, defect 7): compiled autograd pinned the hooks that existed when
# it captured the backward.  From the first node that runs user code on, hooks are read when
# their node runs, as the engine reads them; saved tensors are checked where eager unpacks them;
# and a gradient that becomes None during the backward stays None.
import torch

calls = []


def run(name, body):
    calls.clear()
    try:
        grads = body()
        print(name, calls, grads)
    except RuntimeError as e:
        print(name, calls, "RuntimeError:", str(e).split(".")[0])


def tensor_hook_from_hook():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * 3

    def inner(g):
        calls.append("inner")
        return g * 10

    def outer(g):
        calls.append("outer")
        y.register_hook(inner)
        return g

    z.register_hook(outer)
    z.sum().backward()
    return x.grad.tolist()


def node_hooks_from_hook():
    x = torch.tensor([1.0, -1.0], requires_grad=True)
    y = x.exp()
    z = (y * y).sum()

    def pre(grads):
        calls.append("pre " + y.grad_fn.name())

    def post(grad_inputs, grads):
        calls.append("post " + y.grad_fn.name())

    def first(g):
        calls.append("first")
        y.grad_fn.register_prehook(pre)
        y.grad_fn.register_hook(post)
        return g

    zz = z * 1
    zz.register_hook(first)
    zz.backward()
    return [round(v, 4) for v in x.grad.tolist()]


def leaf_hooks_from_custom_backward():
    w = torch.tensor([1.0, 2.0], requires_grad=True)

    class Reg(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            calls.append("backward")
            w.register_hook(lambda gw: calls.append("w hook") or gw * 2)
            return g

    Reg.apply(w * 3).sum().backward()
    return w.grad.tolist()


def removed_during_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * 3
    handle = y.register_hook(lambda g: calls.append("removed hook") or g * 100)

    def remover(g):
        calls.append("remover")
        handle.remove()
        return g

    z.register_hook(remover)
    z.sum().backward()
    return x.grad.tolist()


def modified_saved_tensor():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = (y * y).sum()
    w = z * 2

    def spoil(g):
        calls.append("spoil")
        with torch.no_grad():
            y.add_(1)
        return g

    w.register_hook(spoil)
    w.backward()
    return x.grad.tolist()


class NoneGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * 2 + b

    @staticmethod
    def backward(ctx, g):
        calls.append("none for a")
        return None, g


def none_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    NoneGrad.apply(x * 3, w).sum().backward()
    return x.grad, w.grad.tolist()


for mode in ("plain", "compiled"):
    for name, body in [("tensor_hook_from_hook", tensor_hook_from_hook), ("node_hooks_from_hook", node_hooks_from_hook),
                       ("leaf_hooks_from_custom_backward", leaf_hooks_from_custom_backward),
                       ("removed_during_backward", removed_during_backward), ("modified_saved_tensor", modified_saved_tensor),
                       ("none_gradient", none_gradient)]:
        run(mode + " " + name, torch.compile(body) if mode == "compiled" else body)
