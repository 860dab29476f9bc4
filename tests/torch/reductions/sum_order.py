# sum and mean of float32 / float64 print PyTorch's own bits: its CPU kernel adds in a cascade
# (vectors of 8 floats / 4 doubles, rows grouped by fours, levels of 16+ terms), accumulating in
# the element type, and mean is that sum divided by n.  Whole tensors, last dims, leading dims
# (a bias gradient), a middle dim, transposed inputs, keepdim, -0.0, empty ones; and a whole
# tensor of 65536 elements under 1 and 2 threads (PyTorch splits it between threads).
import torch

torch.manual_seed(1)


def h(t):
    return " ".join(v.hex() for v in t.double().flatten().tolist()[:24])


cases = [((5,), ()), ((9,), ()), ((33, 17), (1,)), ((33, 17), (0,)), ((4, 70), (0,)), ((70, 4), (0,)),
         ((3, 5), (0,)), ((7, 40, 3), (2,)), ((7, 40, 3), (1,)), ((7, 40, 3), (0,)), ((7, 40, 3), (0, 1)),
         ((7, 40, 3), (1, 2)), ((64, 100), (1,)), ((100, 64), (0,)), ((130, 36), (0,)), ((16, 130), (-1,)),
         ((1, 37), (0,)), ((37, 1), (0,)), ((2, 3, 4, 5), (0, 1)), ((2, 3, 4, 5), (2, 3)), ((120, 120), ())]
for shape, dims in cases:
    for dt in (torch.float32, torch.float64):
        x = torch.randn(shape, dtype=dt) * 3 + 1
        for m in ("sum", "mean"):
            f = getattr(x, m)
            print(shape, dims, dt, m, h(f(dims) if dims else f()))
        if len(shape) == 2:
            xt = x.t()
            print("  T", h(xt.sum(0)), h(xt.mean(1)), h(xt.sum()))
        print("  keepdim", h(x.sum(dims, keepdim=True) if dims else x.sum()))
for n in (10, 64, 640):
    x = torch.randn(n)
    print("loss-like", n, x.mean().item(), ((x - 0.5) ** 2).mean().item(), x.sum().item())
z = torch.tensor([-0.0, -0.0])
print(z.sum().item(), z.sum(0, keepdim=True).tolist(), torch.tensor([]).sum().item(), torch.tensor([]).mean().item())
print(torch.ones(3, 0).sum(1).tolist(), torch.ones(0, 3).sum(0).tolist(), torch.ones(0, 3).mean(0).tolist())
big = torch.randn(65536)
for threads in (1, 2):
    torch.set_num_threads(threads)
    print("threads", threads, big.sum().item(), big.mean().item(), big.double().sum().item())
