# svd (U, S, Vh, both modes), eigh (L, V, both triangles), eigvalsh, pinv and pinv's gradient are
# PyTorch's bits (the same gesdd / syevd / gemm calls): a hash of every element's hex per result
# (str hashes are deterministic: PYTHONHASHSEED=0, Ember's own)
import torch
def hx(t):
    return " ".join(v.hex() for v in t.detach().double().flatten().tolist())
torch.manual_seed(21)
for dt in (torch.float32, torch.float64):
    for shape in [(5, 5), (7, 3), (3, 7), (2, 4, 4), (40, 40), (64, 20)]:
        A = torch.randn(shape, dtype=dt)
        for full in (False, True):
            r = torch.linalg.svd(A, full_matrices=full)
            print(dt, shape, full, hash(hx(r.U)), hash(hx(r.S)), hash(hx(r.Vh)))
        if shape[-1] == shape[-2]:
            H = A + A.mT
            for up in ("L", "U"):
                L, V = torch.linalg.eigh(H, UPLO=up)
                print("  eigh", up, hash(hx(L)), hash(hx(V)), hash(hx(torch.linalg.eigvalsh(H, UPLO=up))))
            X = A.clone().requires_grad_()
            P = torch.linalg.pinv(X)
            P.sum().backward()
            print("  pinv", hash(hx(P)), hash(hx(X.grad)))
