# isnan / isinf / isfinite over every dtype family, as methods and torch functions.
import torch

x = torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), -0.0, 3.5])
print(x.isnan(), torch.isinf(x), torch.isfinite(x))
print(x.double().isnan(), x.half().isinf(), x.bfloat16().isfinite())
i = torch.tensor([1, -2, 3])
print(i.isnan(), i.isinf(), i.isfinite(), torch.tensor([True, False]).isfinite())
print(x[torch.isfinite(x)], (x / 0).isnan().sum(), torch.isnan(torch.zeros(2, 2)).any())
