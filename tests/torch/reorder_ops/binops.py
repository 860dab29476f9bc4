# atan2 / fmod through the op table: dtypes, broadcasting, scalars, integer fmod, gradients.
import torch

y = torch.tensor([[1.0, -1.0, 0.0], [2.0, -0.5, 3.0]])
x = torch.tensor([0.5, -2.0, -1.0])
print(torch.atan2(y, x), y.atan2(x), torch.arctan2(y.double(), x.double()), torch.atan2(torch.tensor([1, -2]), torch.tensor([3, 4])))
print(torch.fmod(y, 0.75), y.fmod(x), torch.fmod(torch.tensor([-7, 7, -8]), torch.tensor([3, -3, 5])), torch.fmod(torch.tensor([5, -5]), 3))
print(torch.fmod(torch.tensor([-7.5, 7.5]), -2.0), torch.remainder(torch.tensor([-7.5, 7.5]), -2.0))
try:
    torch.fmod(torch.tensor([1, 2]), torch.tensor([0, 1]))
except RuntimeError as e:
    print("RuntimeError", e)
a = torch.tensor([[0.3, -1.2, 2.5], [1.5, 0.7, -0.4]], requires_grad=True)
b = torch.tensor([0.8, 0.9, -1.3], requires_grad=True)
(torch.atan2(a, b).sum() + torch.fmod(a, b).pow(2).sum()).backward()
print(a.grad, b.grad, torch.atan2(a, b).grad_fn.name(), torch.fmod(a, b).grad_fn.name())
d = torch.tensor([[0.3, -1.2], [1.5, 0.7]], dtype=torch.float64, requires_grad=True)
e = torch.tensor([0.8, -1.3], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(lambda p, q: (torch.atan2(p, q), torch.fmod(p, q)), (d, e)))
