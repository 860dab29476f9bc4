"""PyTorch's half of the PyTorch -> Ember -> PyTorch checkpoint round trip (pytorch_roundtrip.sh):
`save DIR` writes pt.pt (zip format) and pt_legacy.pt (legacy format); `check DIR` loads what
Ember re-saved (em.pt, em_legacy.pt) and compares it with the original object: the same
containers and keys, and each tensor of the same type, dtype, geometry, flags and storage bytes,
with the same tensors sharing storages."""
import collections
import os
import sys

import torch


def make():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    model(torch.randn(4, 3)).sum().backward()
    opt.step()
    base = torch.arange(24, dtype=torch.float64).reshape(4, 6)
    dtypes = collections.OrderedDict(
        (str(dt), (torch.randn(5) * 1000).to(dt)) for dt in
        [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
         torch.int8, torch.uint8, torch.bool])
    return {
        "model": model.state_dict(),
        "optim": opt.state_dict(),
        "dtypes": dtypes,
        "views": [base, base.t(), base[1:3, ::2], base[2], base.view(-1)[5:]],
        "params": [torch.nn.Parameter(torch.randn(2, 2)), torch.nn.Parameter(torch.ones(3), requires_grad=False)],
        "grad": torch.randn(3, requires_grad=True),
        "nested": {"a": (1, 2.5, "s", None, True), "b": [[torch.tensor(3)]], 7: {"c": torch.zeros(0)}},
    }


def compare(a, b, path, ptrs):
    assert type(a) is type(b), (path, type(a), type(b))
    if isinstance(a, torch.Tensor):
        assert (a.dtype, a.shape, a.stride(), a.storage_offset(), a.requires_grad) == \
               (b.dtype, b.shape, b.stride(), b.storage_offset(), b.requires_grad), path
        assert a.storage().untyped().tolist() == b.storage().untyped().tolist(), path   # bitwise
        ptrs.append((a.storage().data_ptr(), b.storage().data_ptr()))
    elif isinstance(a, dict):
        assert list(a.keys()) == list(b.keys()), path
        assert getattr(a, "_metadata", None) == getattr(b, "_metadata", None), path
        for k in a:
            compare(a[k], b[k], f"{path}[{k!r}]", ptrs)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]", ptrs)
    else:
        assert a == b, (path, a, b)


def check(d):
    orig = torch.load(os.path.join(d, "pt.pt"))
    for name in ["em.pt", "em_legacy.pt"]:
        ptrs = []
        compare(orig, torch.load(os.path.join(d, name)), name, ptrs)
        # storages shared in the original are shared after the trip, and only those
        same_a = {(i, j) for i, (x, _) in enumerate(ptrs) for j, (y, _) in enumerate(ptrs) if x == y}
        same_b = {(i, j) for i, (_, x) in enumerate(ptrs) for j, (_, y) in enumerate(ptrs) if x == y}
        assert same_a == same_b, name
        print(name, "matches:", len(ptrs), "tensors,", len({x for x, _ in ptrs}), "storages")


if __name__ == "__main__":
    mode, d = sys.argv[1], sys.argv[2]
    if mode == "save":
        obj = make()
        torch.save(obj, os.path.join(d, "pt.pt"))
        torch.save(obj, os.path.join(d, "pt_legacy.pt"), _use_new_zipfile_serialization=False)
    else:
        check(d)
