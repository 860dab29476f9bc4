# out= of linalg.svd, torch.svd, linalg.eigh, eigvalsh, matrix_rank, pinv: the outs returned, resized
# (LAPACK results column-major), values as without out, PyTorch's dtype errors
import torch
torch.manual_seed(0)
A = torch.randn(4, 3)
def show(name, f):
    try:
        r = f()
        print(name, "ok", [tuple(t.shape) for t in r] if isinstance(r, tuple) else tuple(r.shape))
        return r
    except Exception as e:
        print(name, type(e).__name__, e)
u, s, v = torch.empty(0), torch.empty(0), torch.empty(0)
r = show("svd", lambda: torch.linalg.svd(A, full_matrices=False, out=(u, s, v)))
print(r[0] is u, r[1] is s, r[2] is v, u.stride(), v.stride(), torch.allclose(u, torch.linalg.svd(A, full_matrices=False).U))
u2, s2, v2 = torch.empty(0), torch.empty(0), torch.empty(0)
show("torch.svd", lambda: torch.svd(A, out=(u2, s2, v2)))
print(torch.allclose(v2, torch.svd(A).V), u2.stride())
H = A.T @ A
l, w = torch.empty(0), torch.empty(0)
show("eigh", lambda: torch.linalg.eigh(H, out=(l, w)))
print(torch.allclose(l, torch.linalg.eigvalsh(H)), w.stride())
e = torch.empty(0)
show("eigvalsh", lambda: torch.linalg.eigvalsh(H, out=e))
print(e)
rk = torch.empty(0, dtype=torch.long)
show("matrix_rank", lambda: torch.linalg.matrix_rank(A, out=rk))
print(rk)
p = torch.empty(0)
show("pinv", lambda: torch.linalg.pinv(A, out=p))
print(torch.allclose(p, torch.linalg.pinv(A)))
show("svd bad dtype", lambda: torch.linalg.svd(A, out=(torch.empty(0, dtype=torch.float64), s, v)))
show("eigvalsh bad dtype", lambda: torch.linalg.eigvalsh(H, out=torch.empty(0, dtype=torch.long)))
