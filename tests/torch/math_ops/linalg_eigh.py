# torch.linalg.eigh / eigvalsh (syevd, as ATen: "V" with eigenvectors, "N" for eigvalsh of a tensor
# that needs no gradient), UPLO 'L' / 'U' (only that triangle is read), float32 and float64,
# batches, V diag(L) V^T reassembling A, gradients of gauge-invariant losses (V[:, i]^2), and
# PyTorch's errors.
import torch


def digits(t, n=6):
    return " ".join("%.*g" % (n, v) for v in t.detach().double().flatten().tolist())


def run(X, uplo):
    # one function, so --compile-all traces eigh, the reassembly and the loss with its backward
    A = X + X.mT
    L, V = torch.linalg.eigh(A, UPLO=uplo)
    R = (V * L.unsqueeze(-2)) @ V.mT
    n = L.shape[-1]
    loss = (L * torch.arange(1, n + 1, dtype=X.dtype)).sum() + (V ** 2 * (torch.arange(n * n, dtype=X.dtype).reshape(n, n) % 3)).sum()
    loss.backward()
    return A, L, V, R


torch.manual_seed(11)
for dt in (torch.float32, torch.float64):
    for shape in [(1, 1), (3, 3), (4, 4), (2, 3, 3), (2, 1, 5, 5), (17, 17)]:
        for uplo in ("L", "U"):
            X = torch.randn(shape, dtype=dt).requires_grad_()
            A, L, V, R = run(X, uplo)
            print(dt, shape, uplo, tuple(L.shape), tuple(V.shape), L.grad_fn.name())
            print("  L ", digits(L))
            print("  V ", digits(V, 4) if shape[-1] < 17 else digits(V[..., :3, :], 4))
            print("  A=VLV^T", torch.allclose(R, A, atol=1e-4 if dt == torch.float32 else 1e-12))
            print("  gX", digits(X.grad, 4) if shape[-1] < 17 else digits(X.grad[:3], 4))
            e = torch.linalg.eigvalsh(A.detach(), UPLO=uplo)
            print("  eigvalsh", digits(e), e.grad_fn)

# only one triangle is read
M = torch.tensor([[2.0, 100.0, -7.0], [1.0, 3.0, 55.0], [0.5, -1.0, 4.0]], dtype=torch.float64)
print(torch.linalg.eigvalsh(M), torch.linalg.eigvalsh(M, UPLO="U"), torch.linalg.eigvalsh(M, "u"))
print(torch.linalg.eigh(torch.tensor([[2.0, 1.0], [1.0, 2.0]])))
X = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
e = torch.linalg.eigvalsh(X + X.mT)
print(e.grad_fn.name())
e.sum().backward()
print(digits(X.grad, 5))
r = torch.linalg.eigh(torch.zeros(0, 0))
print(r.eigenvalues.shape, r.eigenvectors.shape, torch.linalg.eigh(torch.zeros(2, 0, 0))[1].shape)


def t(f):
    try:
        r = f()
        print("ok", r if isinstance(r, torch.Tensor) else [tuple(x.shape) for x in r])
    except Exception as e:
        print(type(e).__name__, e)


t(lambda: torch.linalg.eigh(torch.ones(3)))
t(lambda: torch.linalg.eigh(torch.ones(2, 3)))
t(lambda: torch.linalg.eigh(torch.ones(3, 3, dtype=torch.long)))
t(lambda: torch.linalg.eigh(torch.ones(3, 3, dtype=torch.half)))
t(lambda: torch.linalg.eigh(torch.ones(3, 3), UPLO="X"))
t(lambda: torch.linalg.eigh(torch.ones(3, 3), UPLO="LU"))
t(lambda: torch.linalg.eigvalsh(torch.ones(2, 3)))
t(lambda: torch.linalg.eigvalsh(torch.ones(3, 3, dtype=torch.int32)))
t(lambda: torch.linalg.eigh(torch.full((3, 3), float("nan"))))
t(lambda: torch.linalg.eigh(torch.full((2, 3, 3), float("nan"))))
