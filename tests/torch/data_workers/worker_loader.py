# DataLoader with worker processes (num_workers > 0): the batches and their order equal the
# single-process loader's, each worker's torch and random streams are seeded base_seed + id as
# PyTorch seeds them, get_worker_info / worker_init_fn, IterableDataset sharding, a worker's
# exception re-raised in the main process, and the main stream after the loop.
import random
import warnings

import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info

warnings.simplefilter("ignore")   # the worker-count advice depends on the machine's CPUs


class Noisy(Dataset):
    def __len__(self):
        return 11

    def __getitem__(self, i):
        info = get_worker_info()
        return {"x": torch.tensor([float(i)]), "r": torch.rand(2), "p": random.random(),
                "w": -1 if info is None else info.id}


def run(**kw):
    torch.manual_seed(0)
    out = []
    for b in DataLoader(Noisy(), **kw):
        out.append((b["x"].reshape(-1).tolist(), [round(v, 5) for v in b["r"].reshape(-1).tolist()],
                    [round(v, 5) for v in torch.as_tensor(b["p"]).reshape(-1).tolist()],
                    torch.as_tensor(b["w"]).tolist()))
    out.append(round(torch.rand(1).item(), 6))
    return out


single = run(batch_size=3, shuffle=True)
for nw in (1, 2):
    multi = run(batch_size=3, shuffle=True, num_workers=nw)
    print(nw, [m[0] for m in multi[:-1]] == [s[0] for s in single[:-1]], multi[-1] == single[-1])
    for row in multi:
        print(row)
print(run(batch_size=4, num_workers=2, drop_last=True, prefetch_factor=1)[:-1])
print(run(batch_size=None, num_workers=2)[:3])
print(len(DataLoader(Noisy(), batch_size=3, num_workers=2)))


def init(worker_id):
    info = get_worker_info()
    info.dataset.scale = 10 * (worker_id + 1)


class Scaled(Dataset):
    scale = 1

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return i * self.scale


print([b.tolist() for b in DataLoader(Scaled(), batch_size=2, num_workers=2, worker_init_fn=init)])
print(Scaled.scale, get_worker_info())


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


print([b.tolist() for b in DataLoader(Stream(11), batch_size=2, num_workers=2)])
print([b.tolist() for b in DataLoader(Stream(3), batch_size=2, num_workers=2)])
print(list(DataLoader(Stream(5), batch_size=None, num_workers=2)))


class Bad(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise KeyError("missing %d" % i)
        if i == 5:
            raise ValueError("bad item")
        return i


for bs in (1, 2):
    try:
        for b in DataLoader(Bad(), batch_size=bs, num_workers=2):
            print("got", b.tolist())
    except (KeyError, ValueError) as e:
        lines = str(e).splitlines()
        print(type(e).__name__, lines[0], lines[1], lines[-1])

tds = TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4))
print([(x.tolist(), y.tolist()) for x, y in DataLoader(tds, batch_size=3, num_workers=2, persistent_workers=True)])
for bad in (dict(num_workers=0, prefetch_factor=3), dict(num_workers=0, persistent_workers=True),
            dict(timeout=-1), dict(num_workers=-1)):
    try:
        DataLoader(tds, **bad)
    except ValueError as e:
        print("ValueError", e)
