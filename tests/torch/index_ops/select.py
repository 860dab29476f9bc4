# kthvalue (keepdim, negative dims, return_types), topk/sort, unique / unique_consecutive (inverse,
# counts, dim), nonzero (as_tuple), torch.where's one-argument form, argwhere, bincount (weights,
# minlength), histc, count_nonzero, argmax/argmin with keepdim.
import torch


def kth(x):
    r = torch.kthvalue(x, 2, 1)
    return (r, r.values, r.indices, x.kthvalue(1, dim=0, keepdim=True), x.kthvalue(3, -1, True).indices,
            torch.kthvalue(torch.tensor(3.5), 1), torch.kthvalue(x.long(), 2), x.double().kthvalue(3))


def orders(x):
    return (x.topk(2), x.topk(2, dim=0, largest=False), x.sort(dim=-1, descending=True), x.argsort(0),
            x.argmax(dim=1, keepdim=True), torch.argmin(x, -1, True), x.argmax(), torch.argmin(x, dim=0))


def uniques(t, t2):
    return (torch.unique(t), torch.unique(t, return_inverse=True), torch.unique(t, return_counts=True),
            torch.unique(t, return_inverse=True, return_counts=True), t.unique(sorted=True),
            torch.unique(t2, dim=0, return_inverse=True, return_counts=True), torch.unique(t2, dim=1),
            torch.unique(t2.float(), dim=-1, return_counts=True),
            torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])),
            torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True),
            torch.unique_consecutive(t2, dim=0, return_counts=True),
            torch.unique(torch.tensor([True, False, True])), torch.unique(torch.tensor(3)),
            torch.unique(t2, return_inverse=True), torch.unique(torch.tensor([2.5, -1.0, 2.5, 0.0])))


def nonzeros(m):
    return (torch.nonzero(m), m.nonzero(), torch.nonzero(m, as_tuple=True), m.nonzero(as_tuple=True),
            torch.where(m), torch.where(m > 1), torch.argwhere(m), m.argwhere(), torch.nonzero(torch.tensor(3.)),
            torch.nonzero(torch.tensor(3.), as_tuple=True), torch.nonzero(torch.zeros(2, 3)),
            torch.count_nonzero(m), torch.count_nonzero(m, dim=0), m.count_nonzero(dim=(0, 1)))


def wheres(x):
    return (torch.where(x > 2, x, torch.zeros(1)), torch.where(x > 2, x, 0.), torch.where(x > 2, 1., 0.),
            x.where(x < 4, -x), torch.where(x.long() > 2, x.long(), 7))


def counts(v, w):
    return (torch.bincount(v), torch.bincount(v, minlength=8), torch.bincount(v, weights=w),
            torch.bincount(v, weights=w.double()), torch.bincount(v, weights=torch.tensor([1, 2, 3, 4, 5])),
            v.bincount(), torch.bincount(torch.tensor([], dtype=torch.long)), torch.bincount(v.int(), minlength=2))


def hists(x):
    return (torch.histc(x, 4), torch.histc(x, bins=3, min=0, max=3), x.histc(5, -1, 1), torch.histc(x.double(), 6),
            torch.histc(torch.tensor([2., 2.]), 3), torch.histc(torch.tensor([0., 1., 2., 3., 4., 5.]), 5, 0, 5),
            torch.histc(torch.tensor([1., -3., 9., 10.5]), 2, 0, 10))


x = torch.tensor([[3., 1., 2., 9.], [0., 5., 4., -1.], [7., 8., -2., 6.]])
print(*kth(x), sep="\n")
print(*orders(x), sep="\n")
print(*uniques(torch.tensor([3, 1, 3, 2, 7, 5, 1, 0, 9]), torch.tensor([[1, 2, 0], [1, 2, 0], [0, 1, 1], [1, 2, 0]])),
      sep="\n")
print(*nonzeros(torch.tensor([[1, 0, 2], [0, 0, 3]])), sep="\n")
print(*wheres(x), sep="\n")
print(*counts(torch.tensor([1, 3, 3, 0, 5]), torch.tensor([0.5, 1.0, 2.0, 4.0, 0.25])), sep="\n")
print(*hists(torch.tensor([0.1, 0.5, 1.2, 2.9, 3.0, -0.7, 2.2, 1.0])), sep="\n")
