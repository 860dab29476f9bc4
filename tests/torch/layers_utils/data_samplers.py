import torch
import torch.nn as nn
from torch.utils.data import WeightedRandomSampler, DataLoader, TensorDataset
g = torch.Generator()
g.manual_seed(3)
s = WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5, replacement=True, generator=g)
print(list(s), len(s))
s2 = WeightedRandomSampler(torch.tensor([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], dtype=torch.double), 4, replacement=False, generator=g)
print(list(s2))
torch.manual_seed(0)
print(list(WeightedRandomSampler([1.0, 2.0, 3.0], 6)))
ds = TensorDataset(torch.arange(6.0))
print([b[0].tolist() for b in DataLoader(ds, batch_size=2, sampler=WeightedRandomSampler([1.0] * 6, 6, generator=g))])
for bad in [dict(num_samples=0), dict(num_samples=2.5), dict(replacement=1)]:
    kw = dict(weights=[1.0, 2.0], num_samples=2, replacement=True)
    kw.update(bad)
    try:
        WeightedRandomSampler(**kw)
    except ValueError as e:
        print("ValueError:", e)
m = nn.Linear(2, 2)
print(m.share_memory() is m)
from torch.utils.data import ConcatDataset, Subset, random_split, SubsetRandomSampler
a = TensorDataset(torch.arange(4.0))
b = TensorDataset(torch.arange(10.0, 13.0))
c = ConcatDataset([a, b])
print(len(c), c.cumulative_sizes, c[0], c[4], c[-1], c[-7])
print(len(a + b), (a + b)[5])
try:
    c[-8]
except ValueError as e:
    print("ValueError:", e)
g = torch.Generator().manual_seed(7)
parts = random_split(range(10), [3, 7], generator=g)
print([list(p) for p in parts], [type(p).__name__ for p in parts])
parts = random_split(range(11), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(1))
print([list(p) for p in parts])
try:
    random_split(range(5), [2, 2])
except ValueError as e:
    print("ValueError:", e)
torch.manual_seed(5)
print([len(p) for p in random_split(range(7), [0.25, 0.75])])
print(list(SubsetRandomSampler([10, 20, 30, 40], generator=torch.Generator().manual_seed(2))))
print([b[0].tolist() for b in DataLoader(c, batch_size=3, sampler=SubsetRandomSampler(list(range(7)), generator=torch.Generator().manual_seed(3)))])
