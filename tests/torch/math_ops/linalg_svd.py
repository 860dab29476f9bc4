# torch.linalg.svd (gesdd, ATen's driver: jobz "S" reduced, "A" full_matrices), torch.svd (V =
# Vh^H; compute_uv=False gives zero U, V), Tensor.svd: square, tall, wide and batched inputs in
# float32 and float64, U S Vh reassembling A, gradients of gauge-invariant losses (the signs of
# a singular pair cancel in U[:, i]^2, Vh[i, :]^2 and U diag(S) Vh), PyTorch's errors.
import torch


def digits(t, n=6):
    return " ".join("%.*g" % (n, v) for v in t.detach().double().flatten().tolist())


def run(A, full):
    # one function, so --compile-all traces svd, its reassembly and the loss with its backward
    U, S, Vh = torch.linalg.svd(A, full_matrices=full)
    k = S.shape[-1]
    R = (U[..., :, :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]
    w = torch.arange(1, k + 1, dtype=A.dtype)
    loss = (S * w).sum() + (U[..., :, :k] ** 2 * (torch.arange(U.shape[-2] * k, dtype=A.dtype).reshape(-1, k) % 3)).sum() \
        + (Vh[..., :k, :] ** 2 * (torch.arange(k * Vh.shape[-1], dtype=A.dtype).reshape(k, -1) % 4)).sum()
    loss.backward()
    return U, S, Vh, R


torch.manual_seed(7)
for dt in (torch.float32, torch.float64):
    for shape in [(4, 4), (5, 3), (3, 5), (2, 4, 3), (2, 2, 3, 4), (1, 1)]:
        for full in (False, True):
            A = torch.randn(shape, dtype=dt).requires_grad_()
            U, S, Vh, R = run(A, full)
            print(dt, shape, full, tuple(U.shape), tuple(S.shape), tuple(Vh.shape), U.grad_fn.name())
            print("  S ", digits(S))
            print("  U ", digits(U, 4))
            print("  Vh", digits(Vh, 4))
            print("  A=USVh", torch.allclose(R, A, atol=1e-5 if dt == torch.float32 else 1e-12))
            print("  gA", digits(A.grad, 4))

# each output alone: S only (svdvals' shortcut), U only, Vh only
torch.manual_seed(1)
for shape in [(4, 3), (3, 4), (3, 3)]:
    A0 = torch.randn(shape, dtype=torch.float64)
    for which in range(3):
        A = A0.clone().requires_grad_()
        r = torch.linalg.svd(A, full_matrices=False)
        k = r.S.shape[-1]
        if which == 0:
            loss = (r.S ** 2).sum()
        elif which == 1:
            loss = (r.U[:, :k] ** 2 * torch.arange(shape[0] * k, dtype=torch.float64).reshape(-1, k)).sum()
        else:
            loss = (r.Vh ** 2 * torch.arange(k * shape[1], dtype=torch.float64).reshape(k, -1)).sum()
        loss.backward()
        print(shape, which, digits(A.grad, 5))

# torch.svd and Tensor.svd
torch.manual_seed(2)
X = torch.randn(4, 3, requires_grad=True)
r = torch.svd(X)
print(type(r).__name__, [tuple(t.shape) for t in r], [t.grad_fn.name() for t in r])
print(torch.allclose(r.U @ torch.diag(r.S) @ r.V.T, X, atol=1e-5))
r2 = torch.svd(X, some=False)
print([tuple(t.shape) for t in r2])
r3 = X.svd()
print(torch.equal(r3.S, r.S), torch.equal(r3.V, r.V))
(r.U @ r.V.T).sum().backward()
print(digits(X.grad, 4))
print(torch.svd(X.detach(), compute_uv=False))
print(torch.svd(torch.tensor([[3.0, 0.0], [0.0, -2.0]])))
print(torch.linalg.svd(torch.tensor([[2.0, 0.0], [0.0, 1.0]], dtype=torch.float64)))
U, S, Vh = torch.linalg.svd(torch.ones(3, 0))
print(U, S, Vh)
print([tuple(t.shape) for t in torch.linalg.svd(torch.ones(0, 2, 3))])
print([tuple(t.shape) for t in torch.linalg.svd(torch.ones(2, 0, 3), full_matrices=False)])


def t(f):
    try:
        r = f()
        print("ok", [tuple(x.shape) for x in r])
    except Exception as e:
        print(type(e).__name__, e)


t(lambda: torch.linalg.svd(torch.ones(3)))
t(lambda: torch.linalg.svd(torch.ones(3, 3, dtype=torch.long)))
t(lambda: torch.linalg.svd(torch.ones(3, 3, dtype=torch.half)))
t(lambda: torch.svd(torch.ones(3)))
t(lambda: torch.svd(torch.ones(3, 3, dtype=torch.int32)))
t(lambda: torch.linalg.svd(torch.ones(3, 3), driver="gesvd"))
t(lambda: torch.linalg.svd(torch.full((3, 3), float("nan"))))
t(lambda: torch.linalg.svd(torch.full((2, 3, 3), float("nan"))))


# bits: svdvals runs gesdd "N" for a tensor that needs no gradient, "S" (svd's S, LinalgSvdBackward0)
# for one that does, as ATen's; the 2-norm and nuclear norm through it
torch.manual_seed(3)
for dt in (torch.float32, torch.float64):
    for shape in [(6, 6), (9, 4), (4, 9), (30, 20)]:
        A = torch.randn(shape, dtype=dt)
        s0 = torch.linalg.svdvals(A)
        s1 = torch.linalg.svdvals(A.clone().requires_grad_())
        s2 = torch.linalg.svd(A, full_matrices=False).S
        print(dt, shape, torch.equal(s0, s1), torch.equal(s1, s2), " ".join(v.hex() for v in s1.double().tolist()[:3]))
        n2 = torch.linalg.matrix_norm(A.clone().requires_grad_(), 2)
        print("  ", n2.item().hex(), torch.linalg.matrix_norm(A, 'nuc').item().hex())
A = torch.randn(5, 3, dtype=torch.float64)
print(" ".join(v.hex() for v in torch.linalg.svdvals(A).tolist()), " ".join(v.hex() for v in torch.linalg.svd(A).S.tolist()))
B = A.clone().requires_grad_()
s = torch.linalg.svdvals(B)
print(s.grad_fn.name())
(s * torch.tensor([1., 2., 3.], dtype=torch.float64)).sum().backward()
print(" ".join(v.hex() for v in B.grad.flatten().tolist()))
