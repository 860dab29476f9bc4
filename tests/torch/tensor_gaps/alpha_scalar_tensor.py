# alpha as a 0-dim tensor (what L-BFGS passes: alpha=-al[i]), as PyTorch's argument parser takes
# a Scalar; a 1-element 1-D tensor or a string is its TypeError.
import torch

x = torch.ones(3)
y = torch.arange(3.0)
print(x.add(y, alpha=torch.tensor(2.)), x.clone().add_(y, alpha=torch.tensor(3)))
print(torch.add(x, y, alpha=torch.tensor(0.5)), x.clone().sub_(y, alpha=torch.tensor(2.)),
      torch.sub(x, y, alpha=torch.tensor(2)))
print(x.add(torch.ones(3, dtype=torch.int64), alpha=torch.tensor(2.)))
print(x.double().add(y.double(), alpha=torch.tensor(0.1)).tolist())
for a in (torch.tensor([1., 2.]), torch.tensor([2.]), "a", None):
    for f in (lambda: x.add(y, alpha=a), lambda: x.clone().sub_(y, alpha=a)):
        try:
            print(f())
        except TypeError as e:
            print("TypeError", e)
