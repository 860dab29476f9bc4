# DistributedSampler as PyTorch shards a dataset (padding to a multiple of the replicas, or
# dropping the tail with drop_last), feeding a DataLoader; one process, explicit ranks.  shuffle=True
# draws torch.randperm from a torch.Generator seeded with seed + epoch: Ember has neither yet
# (issue 16: PyTorch's mt19937 streams), so only the deterministic order is checked here.
import torch
from torch.utils.data import DataLoader, TensorDataset, DistributedSampler
ds = TensorDataset(torch.arange(10).float().reshape(10, 1), torch.arange(10))
for world in (2, 3, 4):
    for drop_last in (False, True):
        for rank in range(world):
            s = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=False, drop_last=drop_last)
            print(world, drop_last, rank, list(s), len(s))
s = DistributedSampler(ds, num_replicas=3, rank=1, shuffle=False)
for xb, yb in DataLoader(ds, batch_size=2, sampler=s):
    print(xb.tolist(), yb.tolist())
try:
    DistributedSampler(ds, num_replicas=2, rank=2)
except ValueError as e:
    print("ValueError", e)
print([b for b in DataLoader(list(range(5)), batch_size=2)])
