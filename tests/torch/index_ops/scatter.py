# scatter (src / value, reduce='add'/'multiply', in place), scatter_add(_), scatter_reduce (every
# reduction, include_self), gather, index_add_/index_copy/index_fill, masked_fill/masked_scatter,
# over several dtypes and negative dims.  The ops run inside functions so --compile-all traces them.
import torch

# scatter_reduce's beta warning (TORCH_WARN_ONCE) fires here, outside the compiled functions
torch.zeros(1).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "sum")


def scatters(x, idx, src):
    y = x.clone()
    r = y.scatter_(1, torch.tensor([[3], [0], [1]]), -1.0)
    z = torch.zeros(2, 6)
    r2 = z.scatter_add_(1, torch.tensor([[5, 5, 0], [1, 1, 1]]), torch.ones(2, 3))
    return (torch.scatter(x, 0, idx, src), x.scatter(0, idx, 7.5), x.scatter(-2, idx, src, reduce="add"),
            x.scatter(0, idx, 2.0, reduce="multiply"), r, y, x.long().scatter(1, torch.tensor([[0, 1]]), 2.7),
            torch.zeros(3, 5, dtype=torch.int32).scatter_(1, torch.tensor([[4, 4, 0]]),
                                                          torch.tensor([[1, 2, 3]], dtype=torch.int32), reduce="add"),
            x.scatter_add(0, idx, src), r2, z,
            torch.scatter_add(torch.zeros(5, dtype=torch.float64), 0, torch.tensor([0, 4, 4]),
                              torch.tensor([0.5, 1.5, 2.5], dtype=torch.float64)))


def reduces(base, ri, rs, red, inc):
    return base.scatter_reduce(1, ri, rs, red, include_self=inc)


def reduces_int(base, ri, rs):
    return (torch.scatter_reduce(base.long(), -1, ri, rs.long(), "mean"),
            torch.scatter_reduce(base.long(), 1, ri, rs.long(), "mean", include_self=False),
            torch.scatter_reduce(base.int(), 1, ri, rs.int(), "amin", include_self=False),
            base.clone().scatter_reduce_(1, ri, rs, "amax"),
            torch.scatter_reduce(torch.tensor([1., float("nan"), 3.]), 0, torch.tensor([0, 2, 2]),
                                 torch.tensor([float("nan"), 5., 1.]), "amax"))


def indexing(x):
    w = x.clone()
    r1 = w.index_add_(1, torch.tensor([0, 3]), torch.ones(3, 2), alpha=2)
    c = x.clone()
    r2 = c.index_copy_(1, torch.tensor([0, 2]), torch.ones(3, 2))
    f = x.clone()
    r3 = f.index_fill_(-1, torch.tensor(3), 0.25)
    return (torch.gather(x, 1, torch.tensor([[3, 0], [1, 1], [2, 0]])), x.gather(-1, torch.tensor([[0], [3], [1]])),
            x.index_select(-1, torch.tensor([3, 0])), r1, w, torch.index_add(x, 0, torch.tensor([2, 2]), torch.ones(2, 4)),
            x.index_copy(0, torch.tensor([2, 0]), torch.full((2, 4), -1.)),
            torch.index_copy(x, -1, torch.tensor([1]), torch.zeros(3, 1)), r2, c,
            x.index_fill(1, torch.tensor([0, 2]), -5), torch.index_fill(x.long(), 0, torch.tensor([1]), torch.tensor(9)),
            r3, f)


def masked(x):
    m = x > 5
    ms = x.clone()
    r = ms.masked_scatter_(~m, torch.arange(-6., 0.))
    return (x.masked_fill(m, 0.), x.masked_fill(m, torch.tensor(-1.)),
            x.masked_scatter(m, torch.arange(100., 112.).reshape(3, 4)), r, ms)


def selects(x, m):
    return x.masked_select(m), torch.masked_select(x, torch.tensor([True, False, True, False]))


x = torch.arange(12.).reshape(3, 4)
print(*scatters(x, torch.tensor([[0, 1, 2, 0], [2, 0, 0, 1]]), torch.arange(1., 9.).reshape(2, 4) * 10), sep="\n")
base = torch.tensor([[1., 2., 3., 4.], [5., 6., 7., 8.]])
ri = torch.tensor([[0, 0, 3, 3, 1], [2, 2, 2, 1, 0]])
rs = torch.tensor([[2., -3., 5., 0.5, 4.], [-1., 9., 3., 6., 2.]])
for red in ["sum", "prod", "mean", "amax", "amin"]:
    for inc in [True, False]:
        print(red, inc, reduces(base, ri, rs, red, inc))
print(*reduces_int(base, ri, rs), sep="\n")
print(*indexing(x), sep="\n")
print(*masked(x), sep="\n")
print(*selects(x, x > 5), sep="\n")
