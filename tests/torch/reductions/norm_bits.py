# torch.norm / linalg.vector_norm / Tensor.norm with p = 2 give PyTorch 1.13's bits: float32
# adds the squares in 8 fused lanes (its tail in groups of four), float64 one fused accumulator;
# and clip_grad_norm_ (which norms each gradient, then the stack of norms) clips by that norm.
import torch
import torch.nn as nn

torch.manual_seed(0)
for n in (1, 3, 5, 8, 12, 13, 16, 31, 100, 1000, 6912, 70001):
    x = torch.randn(n)
    print(n, torch.norm(x, 2).item().hex(), torch.linalg.vector_norm(x).item().hex(), x.norm().item().hex(),
          torch.norm(x.double(), 2).item().hex())
x = torch.randn(48, 144)
print("full", torch.norm(x).item().hex(), torch.norm(x.t(), 2).item().hex(), x.norm(p="fro").item().hex())
print("rows", [v.hex() for v in x.norm(dim=1)[:6].tolist()], [v.hex() for v in torch.linalg.vector_norm(x, dim=-1, keepdim=True)[:3, 0].tolist()])
print("cols", [v.hex() for v in x.norm(dim=0)[:6].tolist()])
x3 = torch.randn(4, 6, 10)
print("trailing", [v.hex() for v in torch.linalg.vector_norm(x3, dim=(1, 2)).tolist()])
model = nn.Sequential(nn.Linear(37, 29), nn.Tanh(), nn.Linear(29, 5))
model(torch.randn(11, 37)).pow(2).sum().backward()
total = nn.utils.clip_grad_norm_(model.parameters(), 0.5)
print("clip", total.item().hex(), [p.grad.norm().item().hex() for p in model.parameters()])
