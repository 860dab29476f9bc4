# torch.linalg.solve: matrix and vector right sides, batches broadcast either way, left=False,
# float32 and float64, every element in hex (ATen's LU of A^T and getrs: the same bits) where
# PyTorch's bits do not depend on OpenBLAS's thread count (at most 2 right-hand sides: with more,
# a multi-threaded OpenBLAS splits them between threads and rounds some differently; those print
# 6 digits), the gradients of B as X (the weights of the loss are small integers, so X's
# gradient is exact) and of A in 4 digits (its -gB X^T is a batched matmul, then summed over
# broadcast batch dims: other ops' bits), and PyTorch's errors.
import torch


def hexes(t):
    return " ".join(v.hex() for v in t.detach().double().flatten().tolist())


def digits(t, n=6):
    return " ".join("%.*g" % (n, v) for v in t.detach().double().flatten().tolist())


torch.manual_seed(3)
for dt in (torch.float32, torch.float64):
    for a_shape, b_shape, left in [((3, 3), (3, 2), True), ((5, 5), (5,), True), ((2, 4, 4), (4,), True),
                                   ((2, 4, 4), (2, 4), True), ((4, 4), (3, 4, 2), True),
                                   ((2, 1, 3, 3), (4, 3, 1), True), ((6, 6), (2, 6), False),
                                   ((2, 3, 3), (2, 5, 3), False), ((3, 3), (2, 2, 3), False), ((17, 17), (17, 3), True)]:
        A = (torch.randn(a_shape, dtype=dt) + 2 * torch.eye(a_shape[-1], dtype=dt)).requires_grad_()
        B = torch.randn(b_shape, dtype=dt).requires_grad_()
        X = torch.linalg.solve(A, B, left=left)
        print(dt, a_shape, b_shape, left, tuple(X.shape), X.grad_fn.name())
        rhs = X.shape[-2] if not left else 1 if B.dim() == 1 or B.shape == A.shape[:-1] else X.shape[-1]
        print("  X ", hexes(X) if rhs <= 2 else digits(X))
        (X * (torch.arange(X.numel(), dtype=dt).reshape(X.shape) % 5 - 2)).sum().backward()
        print("  gA", digits(A.grad, 4))
        print("  gB", hexes(B.grad) if rhs <= 2 else digits(B.grad))

# a system solved exactly
A = torch.tensor([[3.0, 1.0], [1.0, 2.0]])
b = torch.tensor([9.0, 8.0])
print(torch.linalg.solve(A, b), torch.allclose(A @ torch.linalg.solve(A, b), b))


def t(f):
    try:
        r = f()
        print("ok", tuple(r.shape))
    except Exception as e:
        print(type(e).__name__, e)


A = torch.randn(3, 3, dtype=torch.float64)
t(lambda: torch.linalg.solve(torch.zeros(3, 3), torch.ones(3)))
t(lambda: torch.linalg.solve(torch.zeros(2, 3, 3), torch.ones(2, 3)))
t(lambda: torch.linalg.solve(A, torch.ones(3)))
t(lambda: torch.linalg.solve(A, torch.ones(3, dtype=torch.float64), left=False))
t(lambda: torch.linalg.solve(A, torch.ones(4, dtype=torch.float64)))
t(lambda: torch.linalg.solve(A, torch.ones(4, 2, dtype=torch.float64)))
t(lambda: torch.linalg.solve(A, torch.ones(2, 4, dtype=torch.float64), left=False))
t(lambda: torch.linalg.solve(torch.ones(2, 3), torch.ones(2)))
t(lambda: torch.linalg.solve(torch.ones(3), torch.ones(3)))
t(lambda: torch.linalg.solve(torch.ones(3, 3, dtype=torch.long), torch.ones(3, dtype=torch.long)))
t(lambda: torch.linalg.solve(torch.randn(2, 3, 3), torch.randn(4, 3, 1)))
t(lambda: torch.linalg.solve(torch.randn(0, 3, 3), torch.randn(0, 3, 2)))
t(lambda: torch.linalg.solve(torch.randn(3, 3), torch.randn(3, 0)))
t(lambda: torch.linalg.solve(torch.randn(0, 0), torch.randn(0)))
