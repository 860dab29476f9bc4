# torch.norm, torch.linalg.norm / vector_norm / matrix_norm, svdvals: orders, dims (negative,
# tuples), keepdim, dtype=, float64, gradients, errors, compiled
import math
import torch

def show(*xs):
    print(*[x.detach() if isinstance(x, torch.Tensor) else x for x in xs])

def check(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

A = torch.tensor([[3., -1., 2.], [0.5, 4., -2.], [1., 1., -5.]])
B = torch.arange(24.).reshape(2, 3, 4) / 5 - 2
v = torch.tensor([3., -4., 0., 1.5])
for o in (2, 1, 0, 3, 0.5, -1, float('inf'), -float('inf')):
    print(o, torch.linalg.vector_norm(v, o), torch.linalg.vector_norm(B, o, dim=(0, -1)), torch.linalg.vector_norm(B, o, dim=1, keepdim=True).shape)
print(torch.linalg.vector_norm(A, dtype=torch.float64), torch.linalg.vector_norm(A.double(), 2, -1))
for o in ('fro', 'nuc', 1, -1, 2, -2, float('inf'), -float('inf')):
    print(o, torch.linalg.matrix_norm(A, o), torch.linalg.matrix_norm(B, o), torch.linalg.matrix_norm(B, o, dim=(0, 2), keepdim=True))
    print(torch.linalg.matrix_norm(B, o, dim=(-1, 0)))
print(torch.linalg.norm(A), torch.linalg.norm(v), torch.linalg.norm(A, 'fro'), torch.linalg.norm(A, 2), torch.linalg.norm(v, 1))
print(torch.linalg.norm(B, dim=(1, 2)), torch.linalg.norm(B, 1, dim=-1), torch.linalg.norm(B, float('inf'), dim=(0, 1)))
print(torch.norm(A), torch.norm(A, 1), torch.norm(A, dim=0), torch.norm(B, p=3, dim=(1, 2), keepdim=True))
print(torch.norm(A, 'nuc'), torch.norm(B, 'fro', dim=(0, 1)), torch.norm(B, 'nuc', dim=(1, 2)), A.norm(), A.norm(p=1, dim=1))
print(torch.norm(A, float('inf')), torch.norm(A, dim=1, keepdim=True), torch.norm(A.double(), 0))
print(torch.linalg.svdvals(A), torch.linalg.svdvals(B), torch.linalg.svdvals(B.double()))

x = A.clone().requires_grad_()
for fn in (lambda t: torch.linalg.vector_norm(t), lambda t: torch.linalg.vector_norm(t, 3, dim=0),
           lambda t: torch.linalg.matrix_norm(t, 1), lambda t: torch.linalg.matrix_norm(t, 'nuc'),
           lambda t: torch.linalg.matrix_norm(t, 2), lambda t: torch.norm(t, dim=1),
           lambda t: torch.linalg.vector_norm(t, float('inf'))):
    x.grad = None
    fn(x).sum().backward()
    print(x.grad)

check(lambda: torch.norm(A, p='nuc', dim=0))
check(lambda: torch.linalg.vector_norm(torch.ones(2, 3, dtype=torch.long)))
check(lambda: torch.linalg.matrix_norm(torch.ones(3)))
check(lambda: torch.linalg.matrix_norm(A, ord=3))
check(lambda: torch.linalg.norm(B, ord=2))
check(lambda: torch.linalg.vector_norm(torch.zeros(0), ord=float('inf')))
check(lambda: torch.linalg.vector_norm(A, dim=2))

@torch.compile
def f(t):
    return torch.linalg.norm(t) + torch.norm(t, 1, dim=0).sum() + torch.linalg.matrix_norm(t, 'nuc') + torch.linalg.vector_norm(t, float('inf'), dim=-1).sum()

y = A.clone().requires_grad_()
r = f(y)
r.backward()
show(r, y.grad)
