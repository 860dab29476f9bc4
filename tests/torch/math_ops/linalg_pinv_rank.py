# torch.linalg.pinv (ATen's: from torch.svd, or eigh when hermitian=True; tolerances atol/rtol,
# NumPy's rcond, float64 tolerances compared against the singular values) and
# torch.linalg.matrix_rank (svdvals, or |eigvalsh| when hermitian), torch.pinverse: full-rank and
# rank-deficient, tall, wide, batched, float32 and float64, gradients, PyTorch's errors.
import torch


def digits(t, n=6):
    return " ".join("%.*g" % (n, v) for v in t.detach().double().flatten().tolist())


def pinv_loss(A, herm):
    P = torch.linalg.pinv(A, hermitian=herm)
    (P * torch.arange(P.numel(), dtype=A.dtype).reshape(P.shape) % 3).sum().backward()
    return P


torch.manual_seed(5)
for dt in (torch.float32, torch.float64):
    for shape in [(3, 3), (5, 3), (3, 5), (2, 4, 2)]:
        A = torch.randn(shape, dtype=dt).requires_grad_()
        P = pinv_loss(A, False)
        print(dt, shape, tuple(P.shape), digits(P, 5))
        print("  gA", digits(A.grad, 4))
        print("  rank", torch.linalg.matrix_rank(A.detach()))
    X = torch.randn(4, 4, dtype=dt)
    H = (X + X.T).requires_grad_()
    P = pinv_loss(H, True)
    print(dt, "hermitian", digits(P, 5), digits(H.grad, 4))
    # rank-deficient: rank 2 of 4
    B = torch.randn(4, 2, dtype=dt) @ torch.randn(2, 4, dtype=dt)
    print(dt, "deficient", torch.linalg.matrix_rank(B), torch.linalg.matrix_rank(B, hermitian=True),
          torch.linalg.matrix_rank(B + B.T, hermitian=True), digits(torch.linalg.pinv(B), 4))
    print("  tol", torch.linalg.matrix_rank(B, tol=1e-3), torch.linalg.matrix_rank(B, atol=100.0),
          torch.linalg.matrix_rank(B, rtol=0.5), torch.linalg.matrix_rank(B, atol=0.0, rtol=0.0) >= 2,
          torch.linalg.matrix_rank(torch.stack([B, torch.eye(4, dtype=dt)])))
    print("  pinv tol", digits(torch.linalg.pinv(B, atol=1e-3), 4), digits(torch.linalg.pinv(B, rtol=0.9), 4))
    print("  rcond", digits(torch.linalg.pinv(B, 0.9), 4), digits(torch.pinverse(B, rcond=0.9), 4),
          digits(B.pinverse(), 4))

print(torch.linalg.matrix_rank(torch.eye(3)), torch.linalg.matrix_rank(torch.zeros(3, 3)),
      torch.linalg.matrix_rank(torch.zeros(0, 3)), torch.linalg.matrix_rank(torch.ones(2, 0, 3)))
print(torch.linalg.pinv(torch.tensor([[2.0, 0.0], [0.0, 0.0]])), torch.linalg.pinv(torch.zeros(0, 3)).shape)
print(torch.linalg.pinv(torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64)))


def t(f):
    try:
        print("ok", f())
    except Exception as e:
        print(type(e).__name__, e)


t(lambda: torch.linalg.matrix_rank(torch.ones(3)))
t(lambda: torch.linalg.matrix_rank(torch.ones(3, 3, dtype=torch.long)))
t(lambda: torch.linalg.pinv(torch.ones(3)))
t(lambda: torch.linalg.pinv(torch.ones(3, 3, dtype=torch.long)))
t(lambda: torch.linalg.pinv(torch.ones(2, 3, dtype=torch.int32)))
A = torch.randn(3, 2, requires_grad=True)
print(torch.linalg.pinv(A).grad_fn.name(), torch.linalg.pinv(A @ A.T, hermitian=True).grad_fn.name(),
      torch.pinverse(A).grad_fn.name(), torch.linalg.pinv(A.detach()).grad_fn)
