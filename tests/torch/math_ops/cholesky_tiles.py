# torch.linalg.cholesky of matrices larger than Ember's 16 x 16 transpose tiles and not a multiple
# of them (17, 33, 40), lower and upper, batched, float32 and float64: every element in hex.
# The inputs are built elementwise (no matmul) so both sides factor the same bits.
import torch

torch.manual_seed(5)
for n in (17, 33, 40):
    for dt in (torch.float32, torch.float64):
        r = torch.rand(2, n, n, dtype=dt)
        a = (r + r.transpose(-1, -2)) / 2 + n * torch.eye(n, dtype=dt)
        for upper in (False, True):
            f = torch.linalg.cholesky(a, upper=upper)
            print(n, dt, upper, tuple(f.shape))
            print("  ", " ".join(v.hex() for v in f.double().flatten().tolist()[:: (n // 3)]))
            print("  ", (f.triu(1) if not upper else f.tril(-1)).abs().sum().item())
try:
    torch.linalg.cholesky(-torch.eye(20, dtype=torch.float64).expand(3, 20, 20).clone())
except Exception as e:
    print(type(e).__name__, e)
