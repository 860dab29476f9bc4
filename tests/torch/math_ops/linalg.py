# torch.linalg on LAPACK: cholesky (lower/upper, batched), qr (reduced/complete/r), solve_triangular
# (left/right, upper/lower, unitriangular, broadcast batches), inv, det, slogdet, the torch.*
# aliases of 1.13 (cholesky, qr, inverse, det, slogdet, logdet, triangular_solve); gradients;
# LinAlgError; float32 and float64; compiled
import torch

def show(*xs):
    print(*[x.detach() if isinstance(x, torch.Tensor) else x for x in xs])

def check(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

for dt in (torch.float32, torch.float64):
    A = torch.tensor([[4., 2., 0.6], [2., 5., 1.], [0.6, 1., 3.]], dtype=dt)
    Bt = torch.stack([A, A * 2 + torch.eye(3, dtype=dt)])
    L = torch.linalg.cholesky(A)
    print(L, torch.linalg.cholesky(A, upper=True), torch.linalg.cholesky(Bt))
    print(torch.cholesky(A), torch.cholesky(A, upper=True), A.cholesky())
    print(torch.linalg.cholesky_ex(A))
    M = torch.tensor([[1., 2.], [3., 4.], [5., 6.5]], dtype=dt)
    print(torch.linalg.qr(M), torch.linalg.qr(M, mode='complete'), torch.linalg.qr(M, mode='r'))
    print(torch.linalg.qr(M.t()), torch.qr(M), torch.qr(M, some=False).Q.shape)
    q, r = torch.linalg.qr(Bt)
    print(q, r)
    Bm = torch.tensor([[1., 2.], [0., -1.], [3., 0.5]], dtype=dt)
    print(torch.linalg.solve_triangular(L, Bm, upper=False))
    print(torch.linalg.solve_triangular(L.t(), Bm, upper=True))
    print(torch.linalg.solve_triangular(L, Bm.t(), upper=False, left=False))
    print(torch.linalg.solve_triangular(L, Bm, upper=False, unitriangular=True))
    print(torch.linalg.solve_triangular(torch.stack([L, L * 2]), Bm, upper=False))
    print(torch.triangular_solve(Bm, L, upper=False))
    print(torch.triangular_solve(Bm, L.t(), upper=True, transpose=True).solution)
    print(torch.linalg.inv(A), torch.inverse(Bt), A.inverse())
    print(torch.linalg.det(A), torch.det(Bt), A.det(), torch.linalg.det(torch.tensor([[0., 1.], [1., 0.]], dtype=dt)))
    print(torch.linalg.slogdet(A), torch.slogdet(-A), torch.logdet(A), torch.logdet(-A))
    print(torch.linalg.inv_ex(A).inverse)

x = torch.tensor([[4., 2., 0.6], [2., 5., 1.], [0.6, 1., 3.]], dtype=torch.float64, requires_grad=True)
for name, fn in (("cholesky", lambda t: torch.linalg.cholesky(t) * torch.arange(1., 10., dtype=torch.float64).reshape(3, 3)),
                 ("cholesky_upper", lambda t: torch.linalg.cholesky(t, upper=True)),
                 ("inv", lambda t: torch.linalg.inv(t) * torch.arange(9., dtype=torch.float64).reshape(3, 3)),
                 ("det", lambda t: torch.linalg.det(t)),
                 ("slogdet", lambda t: torch.linalg.slogdet(t).logabsdet),
                 ("solve", lambda t: torch.linalg.solve_triangular(t.tril(), torch.ones(3, 2, dtype=torch.float64), upper=False)),
                 ("solve_right", lambda t: torch.linalg.solve_triangular(t.triu(), torch.ones(2, 3, dtype=torch.float64), upper=True, left=False)),
                 ("solve_unit", lambda t: torch.linalg.solve_triangular(t.tril(), t[:, :2], upper=False, unitriangular=True))):
    x.grad = None
    fn(x).sum().backward()
    print(name, x.grad)
b = torch.ones(3, 2, requires_grad=True)
torch.linalg.solve_triangular(torch.tensor([[2., 0., 0.], [1., 3., 0.], [0.5, 1., 4.]]), b, upper=False).sum().backward()
print(b.grad)

check(lambda: torch.linalg.cholesky(torch.tensor([[1., 2.], [2., 1.]])))
check(lambda: torch.linalg.cholesky(torch.stack([torch.eye(2), torch.tensor([[1., 2.], [2., 1.]])])))
check(lambda: torch.linalg.cholesky(torch.ones(2, 3)))
check(lambda: torch.linalg.cholesky(torch.ones(3)))
check(lambda: torch.linalg.cholesky(torch.ones(2, 2, dtype=torch.long)))
check(lambda: torch.linalg.inv(torch.zeros(2, 2)))
check(lambda: torch.linalg.inv(torch.ones(2, 3)))
check(lambda: torch.linalg.det(torch.ones(2, 3)))
check(lambda: torch.linalg.qr(torch.ones(3)))
check(lambda: torch.linalg.qr(torch.ones(2, 2), mode='full'))
check(lambda: torch.linalg.solve_triangular(torch.eye(2), torch.ones(3, 1), upper=False))
check(lambda: torch.linalg.slogdet(torch.ones(2, 3)))
try:
    torch.linalg.cholesky(torch.tensor([[1., 2.], [2., 1.]]))
except torch.linalg.LinAlgError as e:
    print("LinAlgError", isinstance(e, RuntimeError), type(e).__name__)

@torch.compile
def f(a, b):
    L = torch.linalg.cholesky(a)
    q, r = torch.linalg.qr(b)
    s = torch.linalg.slogdet(a)
    return torch.linalg.solve_triangular(L, b, upper=False).sum() + torch.linalg.inv(a).trace() + torch.linalg.det(a) + s.logabsdet + (q @ r).sum()

a = torch.tensor([[4., 2., 0.6], [2., 5., 1.], [0.6, 1., 3.]], requires_grad=True)
bb = torch.tensor([[1., 2.], [0., -1.], [3., 0.5]])
o = f(a, bb)
o.backward()
show(o, a.grad)
