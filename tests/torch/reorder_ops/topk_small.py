# topk with a small k (src/tensor/reorder.c keeps the k best of packed keys by insertion): NaN
# (the largest), infinities, largest and smallest, k from 1 to 32 and up to the dim's length, every
# packed dtype, a dim other than the last, non-contiguous input.  Values are distinct: PyTorch's
# order among equal values is its partial sort's, which Ember does not reproduce.
import torch

torch.manual_seed(0)
x = torch.randn(6, 50)
x[1, 3] = float("nan")
x[4, 7] = float("inf")
x[5, 9] = -float("inf")
for k in (1, 3, 8, 13, 32, 33, 49, 50):
    v, i = x.topk(k, dim=1)
    vs, is_ = x.topk(k, dim=1, largest=False)
    print(k, i.tolist(), is_.tolist())
    print(v[:, :4], vs[:, :4])
r = torch.stack([torch.randperm(40) for _ in range(3)]) - 20
for dt in (torch.float32, torch.bfloat16, torch.int32, torch.int16, torch.int8, torch.uint8):
    y = (r + 20).to(dt) if dt == torch.uint8 else r.to(dt)
    v, i = torch.topk(y, 5)
    v2, i2 = torch.topk(y, 7, largest=False)
    print(dt, v, i, v2, i2, sep="\n")
z = torch.randn(40, 4)
print(*z.topk(6, dim=0), *z.t().topk(6, dim=1), *z[::2].topk(3, dim=0, largest=False), sep="\n")
print(*torch.topk(torch.randn(2, 3, 30), 4, dim=-1), sep="\n")
