# cumprod's backward is differentiable: create_graph=True, then the gradient of the gradient,
# with and without zeros in the input (PyTorch's cumprod_backward switches formulas on zeros).
import torch


def double(x, dim, w):
    x = x.clone().requires_grad_(True)
    y = torch.cumprod(x, dim)
    (g,) = torch.autograd.grad((y * w).sum(), x, create_graph=True)
    print("g", g)
    print("g.requires_grad", g.requires_grad)
    (h,) = torch.autograd.grad((g * g).sum(), x)
    print("h", h)


w = torch.tensor([0.5, -1.0, 2.0, 1.5])
double(torch.tensor([1.5, -2.0, 0.5, 3.0]), 0, w)
double(torch.tensor([1.5, 0.0, 0.5, 3.0]), 0, w)
double(torch.tensor([0.0, 2.0, 0.0, 3.0]), 0, w)
double(torch.tensor([2.0, 3.0, 1.25, 0.0]), -1, w)

x2 = torch.tensor([[1.0, 2.0, 0.0], [0.5, -1.0, 3.0]])
w2 = torch.tensor([[1.0, -1.0, 2.0], [0.25, 0.5, 1.0]])
double(x2, 1, w2)
double(x2, 0, w2)

# first order (no create_graph) with and without zeros
for xs in ([1.5, -2.0, 0.5, 3.0], [1.5, 0.0, 0.5, 0.0], [0.1, 0.2, 0.3, 0.7]):
    x = torch.tensor(xs, requires_grad=True)
    (torch.cumprod(x, 0) * w).sum().backward()
    print("grad", x.grad)

# float64 second derivative, and gradgradcheck as PyTorch runs it
x = torch.tensor([[0.3, -1.2, 0.7], [1.1, 0.0, -0.4]], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradgradcheck(lambda t: torch.cumprod(t, 1), (x,)))
x = torch.tensor([0.3, -1.2, 0.7, 1.3], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradgradcheck(lambda t: torch.cumprod(t, 0), (x,)))
