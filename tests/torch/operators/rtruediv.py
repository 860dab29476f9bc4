# number / tensor is PyTorch's Tensor.__rtruediv__: self.reciprocal() * number (two roundings;
# grad_fn MulBackward0 over ReciprocalBackward0), for float and integer tensors.
import hashlib
import torch

torch.manual_seed(0)
H = lambda t: hashlib.sha1(' '.join(v.hex() for v in t.double().flatten().tolist()).encode()).hexdigest()[:10]


def names(fn):
    return type(fn).__name__, [type(f).__name__ if f is not None else None for f, _ in fn.next_functions]


def scaled(x, c):
    return c / x


x = torch.randn(1000, requires_grad=True)
y = 2.5 / x
print(names(y.grad_fn), names((1 / x).grad_fn))
y.sum().backward()
print(H(y), H(x.grad))
x.grad = None
z = scaled(x, 0.7)
(z * z).sum().backward()
print(H(z), H(x.grad))
i = torch.arange(1, 6)
print(3 / i, (3 / i).dtype, 3 // i, 7 % i)
print(1 / torch.tensor([0.0, -0.0, float("inf")]), 2 / torch.tensor(4.0), (2 / torch.tensor(4.0)).dim())
print(torch.tensor(2.0) / torch.tensor([4.0, 3.0]), 1.5 / torch.tensor([3], dtype=torch.float64))
print(1 / torch.tensor([2.0, 3.0], dtype=torch.float16), 1 / torch.tensor([3.0], dtype=torch.bfloat16))
try:
    "a" / torch.ones(2)
except TypeError as e:
    print("TypeError", e)
