# torch.all / torch.any and their Tensor methods with dim= and keepdim= given as keywords.
# Regression: the native read positional arguments only and dropped the keywords, so
# torch.all(m, dim=0) reduced over every element (a silent wrong answer), and an out= was dropped.
import torch

m = torch.tensor([[True, False], [True, True]])
print(torch.all(m, dim=0), m.any(dim=1), torch.all(m, 0))
print(torch.any(m, 1, True), m.all(dim=-1, keepdim=True))
print(m.all(), torch.any(m))
print(torch.all(torch.tensor([[1.0, 0.0], [2.0, 3.0]]), dim=1))
try:
    m.all(dim=2)
except IndexError as e:
    print("IndexError:", e)
o = torch.zeros(0, dtype=torch.bool)
print(torch.any(m, 0, out=o) is o, o)
