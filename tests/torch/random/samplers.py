# torch.utils.data's shuffling draws from PyTorch's generator: RandomSampler (a seed drawn from
# the global generator, then randperm / randint on a torch.Generator), DistributedSampler
# (Generator().manual_seed(seed + epoch) + randperm), DataLoader(shuffle=True), random_split
# style permutations: the same seed gives PyTorch's orders.
import torch
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, TensorDataset

torch.manual_seed(0)
print(list(RandomSampler(range(10))))
print(list(RandomSampler(range(10))))
print(list(RandomSampler(range(7), replacement=True)))
print(list(RandomSampler(range(5), num_samples=12)))
g = torch.Generator()
g.manual_seed(123)
print(list(RandomSampler(range(8), generator=g)))

ds = TensorDataset(torch.arange(10.0))
for rank in range(3):
    s = DistributedSampler(ds, num_replicas=3, rank=rank, shuffle=True, seed=7)
    out = []
    for epoch in range(2):
        s.set_epoch(epoch)
        out.append(list(s))
    print(rank, out)

torch.manual_seed(42)
loader = DataLoader(ds, batch_size=4, shuffle=True)
for epoch in range(2):
    print([b[0].tolist() for b in loader])
print(torch.rand(2).tolist())
