# torch.autograd.gradcheck (and gradgradcheck where the backward is itself differentiable) in
# float64 for every differentiable op of branch opsmath, as PyTorch runs them
import torch
from torch.autograd import gradcheck, gradgradcheck

d = torch.float64
x = torch.tensor([[0.7, 1.3, 2.2], [0.4, 1.9, 3.1]], dtype=d, requires_grad=True)
y = torch.tensor([[0.5, -1.2, 0.8], [1.5, 0.3, -0.4]], dtype=d, requires_grad=True)
z = torch.tensor([[1.5, -0.7, 0.9, 2.0], [-1.1, 0.6, 1.4, -0.8], [0.3, 2.2, -1.6, 0.5]], dtype=d, requires_grad=True)
A = torch.tensor([[1.2, 0.3, -0.5], [0.1, 0.9, 0.4], [-0.6, 0.2, 1.4]], dtype=d, requires_grad=True)
B = torch.tensor([[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]], dtype=d, requires_grad=True)


def spd(a):
    return a @ a.transpose(-2, -1) + torch.eye(a.shape[-1], dtype=d)


cases = [
    ("lgamma", lambda a: torch.lgamma(a), (x,), True),
    ("digamma", lambda a: torch.digamma(a), (x,), True),
    ("polygamma1", lambda a: torch.polygamma(1, a), (x,), True),
    ("polygamma3", lambda a: torch.polygamma(3, a), (x,), False),
    ("xlogy", lambda a, b: torch.xlogy(b, a), (x, y), True),
    ("xlogy_scalar", lambda a: torch.xlogy(a, 2.5) + torch.xlogy(1.5, a), (x,), True),
    ("cumprod", lambda a: torch.cumprod(a, 1), (z,), False),
    ("cumprod_zero", lambda a: torch.cumprod(a * torch.tensor([1., 0., 1., 1.], dtype=d), -1), (z,), False),
    ("cummax", lambda a: torch.cummax(a, 0).values, (z,), True),
    ("cummin", lambda a: torch.cummin(a, 1).values, (z,), True),
    ("logcumsumexp", lambda a: torch.logcumsumexp(a, 1), (z,), True),
    ("einsum", lambda a, b: torch.einsum('ij,jk->ik', a, b) + torch.einsum('ii->i', a)[:, None], (A, B), True),
    ("einsum_batch", lambda a: torch.einsum('bij,bkj->bik', a[None].expand(2, 3, 3), a[None].expand(2, 3, 3)), (A,), True),
    ("vector_norm", lambda a: torch.linalg.vector_norm(a, 3, dim=1), (z,), True),
    ("matrix_norm_1", lambda a: torch.linalg.matrix_norm(a, 1), (A,), True),
    ("matrix_norm_nuc", lambda a: torch.linalg.matrix_norm(a, 'nuc'), (A,), False),
    ("matrix_norm_2", lambda a: torch.linalg.matrix_norm(a, 2), (A,), False),
    ("norm", lambda a: torch.norm(a, dim=0), (z,), True),
    ("std", lambda a: torch.std(a, (0, 1), correction=0), (z,), True),
    ("var", lambda a: torch.var(a, 1, unbiased=True), (z,), True),
    ("logsumexp", lambda a: torch.logsumexp(a, (0, 1)), (z,), True),
    ("clamp_tensor", lambda a, b: torch.clamp(a, b, b + 1.0), (x, y), True),
    ("lerp", lambda a, b, w: torch.lerp(a, b, w), (x, y, torch.rand(2, 3, dtype=d).requires_grad_()), True),
    ("cholesky", lambda a: torch.linalg.cholesky(spd(a)), (A,), False),
    ("cholesky_upper", lambda a: torch.linalg.cholesky(spd(a), upper=True), (A,), False),
    ("inv", lambda a: torch.linalg.inv(spd(a)), (A,), True),
    ("det", lambda a: torch.linalg.det(a), (A,), True),
    ("slogdet", lambda a: torch.linalg.slogdet(a).logabsdet, (A,), True),
    ("solve_triangular", lambda a, b: torch.linalg.solve_triangular(a.tril() + 2 * torch.eye(3, dtype=d), b, upper=False), (A, B), True),
    ("solve_triangular_right", lambda a, b: torch.linalg.solve_triangular(a.triu() + 2 * torch.eye(3, dtype=d), b.t(), upper=True, left=False), (A, B), True),
    ("solve", lambda a, b: torch.linalg.solve(a + 2 * torch.eye(3, dtype=d), b), (A, B), True),
    ("solve_vector", lambda a, b: torch.linalg.solve(a + 2 * torch.eye(3, dtype=d), b[:, 0]), (A, B), True),
    ("solve_right", lambda a, b: torch.linalg.solve(a + 2 * torch.eye(3, dtype=d), b.t(), left=False), (A, B), True),
    ("qr", lambda a: torch.linalg.qr(a), (B,), False),
    ("svdvals", lambda a: torch.linalg.svdvals(a), (B,), False),
    # svd and eigh through gauge-invariant functions of their vectors (a column's sign cancels)
    ("svd", lambda a: [t ** 2 for t in torch.linalg.svd(a, full_matrices=False)], (B,), True),
    ("svd_wide", lambda a: torch.linalg.svd(a.t(), full_matrices=False).Vh ** 2, (B,), True),
    ("svd_product", lambda a: (lambda r: r.U @ r.Vh)(torch.linalg.svd(a)), (A,), True),
    ("svd_full", lambda a: (lambda r: r.U[:, :2] @ torch.diag(r.S) @ r.Vh)(torch.linalg.svd(a, full_matrices=True)), (B,), False),
    ("torch_svd", lambda a: (lambda r: r.U * r.V.sum(0))(torch.svd(a)), (A,), False),
    ("eigh", lambda a: [t ** 2 for t in torch.linalg.eigh(a + a.t())], (A,), True),
    ("eigh_upper", lambda a: torch.linalg.eigh(a + a.t(), UPLO="U").eigenvectors ** 2, (A,), True),
    ("eigvalsh", lambda a: torch.linalg.eigvalsh(a + a.t()), (A,), True),
    ("pinv", lambda a: torch.linalg.pinv(a), (B,), False),
    ("pinv_hermitian", lambda a: torch.linalg.pinv(a + a.t(), hermitian=True), (A,), False),
]
for name, fn, inputs, second in cases:
    ok = gradcheck(fn, inputs)
    ok2 = gradgradcheck(fn, inputs) if second else None
    print(name, ok, ok2)
