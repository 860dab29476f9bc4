# Tensor.cauchy_ / log_normal_ / geometric_ and torch.poisson consume PyTorch's CPU generator as
# its kernels do (one double draw per element, Box-Muller's cached sample, Hoermann's rejection).
import torch

torch.manual_seed(0)
print(torch.empty(5).cauchy_())
print(torch.empty(2, 3).cauchy_(1.5, 0.25))
print(torch.empty(5, dtype=torch.float64).cauchy_(median=-1.0, sigma=2.0))
print(torch.empty(5).log_normal_())
print(torch.empty(3).log_normal_(0.0, 0.5))
print(torch.empty(4, dtype=torch.float64).log_normal_(mean=0.25, std=1.0))
print(torch.randn(3))   # after an odd count of normals the cached sample is used
print(torch.empty(6).geometric_(0.3))
print(torch.empty(6, dtype=torch.int64).geometric_(0.5))
print(torch.empty(2, 3, dtype=torch.float64).geometric_(p=0.05))
rates = torch.tensor([0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 120.5, 1e4])
print(torch.poisson(rates))
print(torch.poisson(rates.reshape(2, 4).t()))
print(torch.poisson(torch.full((2, 3), 4.0, dtype=torch.float64)))
g = torch.Generator().manual_seed(7)
print(torch.empty(4).cauchy_(generator=g), torch.poisson(torch.tensor([2.0, 50.0]), generator=g))
print(torch.empty(4).geometric_(0.2, generator=g), torch.empty(3).log_normal_(generator=g))
# a strided target fills in TensorIterator order
t = torch.zeros(3, 4).t()
t.cauchy_()
print(t)
x = torch.empty(3)
print(x.geometric_(0.5) is x)
for bad in (lambda: torch.empty(2).cauchy_(0.0, -1.0), lambda: torch.empty(2).log_normal_(1.0, 0.0),
            lambda: torch.empty(2).geometric_(1.5), lambda: torch.poisson(torch.tensor([-1.0])),
            lambda: torch.empty(2, dtype=torch.int64).cauchy_()):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", e)
