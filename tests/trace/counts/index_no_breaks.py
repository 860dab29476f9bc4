# The indexing / data-movement ops of issue 16 compile to one graph with no break; the ops whose
# output shape depends on the data (unique, nonzero / where(cond), bincount, masked_select) break
# as dynamo's do by default.  Ember-specific counts: recorded with `tests/record_golden.sh --ember`
# after checking each by hand.
import torch
import torch._dynamo as dynamo

x = torch.tensor([[3., 1., 2., 9.], [0., 5., 4., -1.], [7., 8., -2., 6.]])
idx = torch.tensor([[0, 1, 2, 0], [2, 0, 0, 1]])
torch.zeros(1).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "sum")   # its once-only warning, here
fns = {
    "kthvalue": lambda x: torch.kthvalue(x, 2, 1).values * 2,
    "kthvalue_pair": lambda x: x.kthvalue(2, 0, keepdim=True),
    "topk_sort": lambda x: (x.topk(2).values + x.sort(0).values[:, :2]) * 2,
    "scatter": lambda x: x.scatter(0, idx, 1.5) + x.scatter(0, idx, x[:2], reduce="add"),
    "scatter_": lambda x: x.clone().scatter_(0, idx, 1.5) + 1,
    "scatter_add": lambda x: x.scatter_add(0, idx, x[:2]) + x.clone().scatter_add_(1, idx[:, :3].repeat(2, 1)[:3], x[:, :3]),
    "scatter_reduce": lambda x: x.scatter_reduce(0, idx, x[:2], "amax") + x.scatter_reduce(0, idx, x[:2], "mean", include_self=False),
    "gather": lambda x: x.gather(1, idx.t()[:3]) * 2,
    "index_ops": lambda x: x.index_copy(0, torch.tensor([2, 0]), x[:2]) + x.index_fill(1, torch.tensor([0]), 3.)
    + x.index_select(0, torch.tensor([2, 1, 0])) + x.clone().index_add_(0, torch.tensor([1]), x[:1]),
    "masked": lambda x: x.masked_fill(x > 2, 0.) + x.masked_scatter(x > 2, x * 10) + torch.where(x > 2, x, -x),
    "histc": lambda x: torch.histc(x, 4) * 2,
    "views": lambda x: x.unfold(1, 2, 1).sum(-1)[:, :3] + torch.tensor_split(x, 2, dim=1)[1][:, :1]
    + torch.meshgrid(x[0, :3], x[1], indexing="xy")[0][:3],
    "moves": lambda x: torch.take_along_dim(x, idx, 0)[:2] + torch.take(x, idx) + torch.stack(x.chunk(2, 1), 0).sum(0)[:2, :2].repeat(1, 2)
    + x.argmax(1, keepdim=True)[:2] + x.split([1, 3], 1)[1].sum(1, keepdim=True)[:2],
    "unique": lambda x: torch.unique(x) * 2,
    "nonzero": lambda x: torch.nonzero(x) * 2,
    "where_cond": lambda x: torch.where(x > 2)[0] * 2,
    "bincount": lambda x: torch.bincount(idx.reshape(-1)) * 2,
    "masked_select": lambda x: x.masked_select(x > 2) * 2,
}
for name, f in fns.items():
    e = dynamo.explain(f)(x)
    print(name, "graphs", e.graph_count, "breaks", e.graph_break_count, [str(b.reason) for b in e.break_reasons])
