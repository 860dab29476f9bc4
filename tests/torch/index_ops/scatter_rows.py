# The scatter family's row loops (src/tensor/scatter.c): scattering along a contiguous last dim
# (rows long enough for the unrolled loop and its tail), an index broadcast along its rows
# (index.expand(...), as scatter_add(0, ...) is usually called), and the general strided loop
# (a transposed src or index), for every reduction and several dtypes; an out-of-range index in
# each part of each loop raises PyTorch's error.  The ops run inside functions so --compile-all
# traces them.
import torch

torch.zeros(1).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "sum")   # the beta warning, here

idx = torch.tensor([[0, 4, 4, 1, 2, 0, 0, 3, 4], [1, 1, 1, 1, 3, 2, 0, 4, 2], [3, 3, 0, 2, 1, 4, 4, 4, 0]])
src = torch.arange(27.).reshape(3, 9) * 0.5 - 4
base = torch.arange(15.).reshape(3, 5) - 5
col = torch.tensor([2, 0, 3]).unsqueeze(1).expand(3, 9)


def along(b, i, s):
    return (b.scatter_add(1, i, s), b.scatter(1, i, s), b.scatter(-1, i, 1.25), b.scatter(1, i, s, reduce="multiply"),
            b.clone().scatter_add_(-1, i, s))


def reduce_all(b, i, s, d):
    return [b.scatter_reduce(d, i, s, red, include_self=inc)
            for red in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)]


for dt in (torch.float32, torch.float64, torch.int64, torch.int32, torch.float16):
    print(dt, *along(base.to(dt), idx, src.to(dt)), sep="\n")
    print(*reduce_all(base.to(dt), idx, src.to(dt), 1), sep="\n")
b0 = torch.arange(36.).reshape(4, 9)
for dt in (torch.float32, torch.float64, torch.int64, torch.bfloat16):
    print(dt, b0.to(dt).scatter_add(0, col, src.to(dt)), b0.to(dt).scatter(0, col, src.to(dt)), sep="\n")
    print(*reduce_all(b0.to(dt), col, src.to(dt), 0), sep="\n")
# strided: a transposed src and index
idx3 = (idx % 3).t().contiguous().t()
srcT = src.t().contiguous().t()
print(base.scatter_add(0, idx3[:, :5], srcT[:, :5]), base.scatter(1, idx3[:, :5], srcT[:, :5]))
print(torch.zeros(9, 5).scatter_add(1, idx.t(), src.t()), *reduce_all(torch.ones(9, 5), idx.t(), src.t(), 1), sep="\n")
# 3-d, scattering along the middle and the last dim
i3 = torch.tensor([[[1, 0, 1, 1, 0], [0, 0, 0, 1, 1]], [[1, 1, 1, 1, 1], [0, 1, 0, 1, 0]]])
s3 = torch.arange(20.).reshape(2, 2, 5)
print(torch.zeros(2, 2, 5).scatter_add(1, i3, s3), torch.zeros(2, 2, 2).scatter_add(2, i3, s3))
print(torch.zeros(2, 3, 5).scatter_add(1, torch.tensor([2, 0]).view(2, 1, 1).expand(2, 2, 5), s3))


def bad(i, at, v, d=1):
    i = i.clone()
    i[(1,) + ((at,) if d == 1 else ())] = v
    return i


cases = [
    lambda: base.scatter_add(1, bad(idx, 2, 5), src),     # in the unrolled part of a row
    lambda: base.scatter_add(1, bad(idx, 8, -1), src),    # in its tail
    lambda: base.scatter(1, bad(idx, 0, 7), src),
    lambda: base.scatter_reduce(1, bad(idx, 6, -2), src, "amax", include_self=False),
    lambda: b0.scatter_add(0, torch.tensor([2, 4, 3]).unsqueeze(1).expand(3, 9), src),   # a broadcast index
    lambda: b0.scatter(0, torch.tensor([2, -1, 3]).unsqueeze(1).expand(3, 9), 0.5),
    lambda: base.scatter_add(0, idx3[:, :5] + 1, srcT[:, :5]),     # strided
]
for k, f in enumerate(cases):
    try:
        f()
        print(k, "no error")
    except Exception as e:
        print(k, type(e).__name__, str(e).split("\n")[0])
