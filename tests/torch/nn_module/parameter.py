# torch.nn.Parameter: a Tensor subclass (isinstance, repr "Parameter containing:"), requires_grad,
# sharing data, results of operations being plain tensors, the typename in error messages.
import torch
import torch.nn as nn

p = nn.Parameter(torch.tensor([1.0, -2.0]))
print(p)
print(repr(nn.Parameter(torch.tensor([[0.5]]), requires_grad=False)))
print("isinstance", isinstance(p, torch.Tensor), isinstance(p, nn.Parameter), type(p).__name__)
print("requires_grad", p.requires_grad, p.is_leaf, p.grad_fn)
print("ops give tensors", type(p * 2).__name__, type(p + p).__name__, type(p.detach()).__name__)
print("data", type(p.data).__name__, p.data.tolist())
base = torch.zeros(3)
q = nn.Parameter(base)
with torch.no_grad():
    q.fill_(4.0)
print("shares storage", base.tolist())
(p * p).sum().backward()
print("grad", p.grad.tolist())
print("default", nn.Parameter().shape)
print("type()", p.type(), torch.is_tensor(p))
print("in-place returns same object", p.requires_grad_(True) is p)
