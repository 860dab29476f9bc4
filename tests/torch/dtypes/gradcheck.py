# torch.autograd.gradcheck / gradgradcheck on float64 inputs, as PyTorch runs them.
import torch
from torch.autograd import gradcheck, gradgradcheck

x = torch.tensor([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]], dtype=torch.float64, requires_grad=True)
w = torch.tensor([[0.2, 0.7], [-0.5, 0.3], [1.1, -0.9]], dtype=torch.float64, requires_grad=True)
print(gradcheck(lambda a, b: (a @ b).tanh(), (x, w)))
print(gradcheck(lambda a: (a.sigmoid() * a.exp()).sum(dim=1), (x,)))
print(gradcheck(lambda a: a.softmax(-1).log(), (x,), eps=1e-6, atol=1e-4))
print(gradcheck(lambda a, b: torch.nn.functional.mse_loss(a @ b, torch.ones(2, 2, dtype=torch.float64)), (x, w)))
print(gradgradcheck(lambda a: (a * a * a).sum(), (x,)))
print(gradgradcheck(lambda a, b: (a @ b).sin(), (x, w)))
print(torch.autograd.gradcheck(lambda a: a.pow(3) + a.abs(), (x,)))


class BadSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * a  # wrong: should be 2 * a


y = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
print(gradcheck(BadSquare.apply, (y,), raise_exception=False))
try:
    gradcheck(BadSquare.apply, (y,))
except RuntimeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
