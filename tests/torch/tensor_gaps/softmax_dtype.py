# softmax / log_softmax / softmin with dtype=: the input is cast first and the op runs in dtype (the
# dtype was ignored: float32 results where PyTorch's are float64), the method, torch. and F. forms,
# gradients through the cast; torch.special.softmax / log_softmax / logsumexp (missing)
import torch
torch.manual_seed(0)
x = torch.randn(3, 4)
print(torch.log_softmax(x, 0, dtype=torch.float64).dtype, torch.softmax(x, 0, dtype=torch.float64).dtype, x.log_softmax(0, dtype=torch.float64).dtype, x.softmax(0, torch.float64).dtype)
import torch.nn.functional as F
print(F.log_softmax(x, 0, dtype=torch.float64).dtype, F.softmax(x, 0, dtype=torch.float64).dtype, torch.log_softmax(x, 0, torch.float64).dtype)
print(F.softmin(x, 0, dtype=torch.float64).dtype, torch.softmax(x, 0, dtype=torch.float32).dtype)
y = torch.randn(2, 5, requires_grad=True)
for f in (lambda t: torch.softmax(t, 1, dtype=torch.float64), lambda t: F.log_softmax(t, 1, dtype=torch.float64), lambda t: t.softmax(0, dtype=torch.float64), lambda t: F.softmin(t, 1, dtype=torch.float64)):
    r = f(y)
    print(r, r.grad_fn.name(), r.grad_fn.next_functions[0][0].name())
    (r * torch.arange(10., dtype=torch.float64).view(2, 5)).sum().backward()
    print(y.grad)
    y.grad = None
print(torch.softmax(torch.tensor([1, 2, 3]), 0, dtype=torch.float32))
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
a = torch.special.softmax(x, 1)
b = torch.special.log_softmax(x, dim=0, dtype=torch.float64)
c = torch.special.logsumexp(x, (0, 1)), torch.special.logsumexp(x, 1, keepdim=True)
print(a, b, c)
(a.sum() + b.sum() + c[0]).backward()
print(x.grad)
