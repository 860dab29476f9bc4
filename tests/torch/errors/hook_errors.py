# Errors from hooks and custom Functions, as PyTorch words them.
import torch


def attempt(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])


def tensor_hook_returns(value):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: value)
    y.sum().backward()


attempt("tensor hook returns int", lambda: tensor_hook_returns(3))
attempt("tensor hook returns wrong shape", lambda: tensor_hook_returns(torch.ones(3)))
attempt("tensor hook returns long", lambda: tensor_hook_returns(torch.ones(2, dtype=torch.long)))


def node_hook(ret, pre):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    if pre:
        y.grad_fn.register_prehook(lambda gO: ret)
    else:
        y.grad_fn.register_hook(lambda gI, gO: ret)
    y.sum().backward()


attempt("prehook returns 2 values", lambda: node_hook((torch.ones(2), torch.ones(2)), True))
attempt("prehook returns tensor", lambda: node_hook(torch.ones(2), True))
attempt("hook returns 3 values", lambda: node_hook((None, None, None), False))
attempt("hook returns list", lambda: node_hook([torch.ones(2), None], False))
attempt("hook raises", lambda: node_hook(1 / 0, False))


def raising_hook(g):
    raise ValueError("from the hook")


def tensor_hook_raises():
    x = torch.tensor([1.0], requires_grad=True)
    x.register_hook(raising_hook)
    (x * 2).backward()


attempt("tensor hook raises", tensor_hook_raises)


class WrongCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, g):
        return g


class WrongType(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return 1.0


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return torch.ones(5)


class NoBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2


class SaveNonTensor(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a, 3)
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g


class ExtraNone(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g, None, None


x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
attempt("backward too few grads", lambda: WrongCount.apply(x, w).sum().backward())
attempt("backward returns float", lambda: WrongType.apply(x).sum().backward())
attempt("backward wrong shape", lambda: WrongShape.apply(x).sum().backward())
attempt("no backward defined", lambda: NoBackward.apply(x).sum().backward())
attempt("save non-tensor", lambda: SaveNonTensor.apply(x))
attempt("extra None grads", lambda: ExtraNone.apply(x).sum().backward())
attempt("apply kwargs", lambda: WrongType.apply(a=x))
attempt("call Function directly", lambda: WrongType()(x))
