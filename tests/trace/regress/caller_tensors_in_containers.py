# Regression: a compiled function handed a list of tensors passed the caller's real list to the
# native (torch.stack, torch.cat), which ran on the real tensors, and the graph kept them as
# constants: every later call returned the first call's result (found with nanoGPT's get_batch,
# `torch.stack([data[i:i + n] for i in ix])`, whose batches all repeated the first one, so the
# model trained on one batch).  Lists and dicts holding tensors now reach natives as fakes, and
# a tensor older than the trace that an op meets untracked breaks the graph instead of becoming
# a constant.
import torch


@torch.compile
def stack(lst):
    return torch.stack(lst)


@torch.compile
def cat_scaled(lst, s):
    return torch.cat(lst, dim=0) * s


@torch.compile
def from_dict(d):
    return torch.stack(list(d.values())) + torch.cat(tuple(d.values())).sum()


@torch.compile
def nested(pairs):
    return [torch.stack(p) for p in pairs]


torch.manual_seed(0)
data = torch.randint(0, 65, (200,))


@torch.compile
def get_batch():
    ix = torch.randint(len(data) - 4, (3,))
    x = torch.stack([data[i:i + 4] for i in ix])
    y = torch.stack([data[i + 1:i + 5] for i in ix])
    return ix, x, y


for v in (1.0, 2.0, 3.0):
    lst = [torch.full((2,), v), torch.full((2,), 10 * v)]
    print(stack(lst).tolist(), cat_scaled(lst, 0.5).tolist())
    d = {"a": torch.full((2,), -v), "b": torch.full((2,), v + 0.5)}
    print(from_dict(d).tolist())
    print([t.tolist() for t in nested([(lst[0], lst[1]), (d["a"], d["b"])])])
for _ in range(3):
    ix, x, y = get_batch()
    print(ix.tolist(), x.tolist(), y.tolist())
