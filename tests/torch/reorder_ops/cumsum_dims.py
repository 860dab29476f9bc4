# cumsum along every dim (src/tensor/reorder.c: along the last dim one running sum per row, along
# an inner dim a row of running sums per slice), float32 and float64 in double accumulators,
# dtype=, infinities and NaN, non-contiguous input, integers.
import torch

torch.manual_seed(0)
x = torch.randn(3, 4, 5)
for d in (0, 1, 2, -1):
    print(d, x.cumsum(d), torch.cumsum(x.double(), d), sep="\n")
print(torch.cumsum(x, 1, dtype=torch.float64)[1], x.transpose(0, 2).cumsum(0)[:, :, 0], x[:, ::2].cumsum(1)[2])
print(torch.tensor([[1., float("inf"), 2.], [float("nan"), 1., -float("inf")]]).cumsum(0),
      torch.tensor([[1., float("inf"), 2.], [float("nan"), 1., -float("inf")]]).cumsum(1))
print(torch.tensor([1e8, 1., -1e8, 1.]).cumsum(0), torch.arange(12).reshape(3, 4).cumsum(0), torch.ones(2, 3, dtype=torch.int32).cumsum(1))
