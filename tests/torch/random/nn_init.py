# nn.init and the default initialisation of nn layers draw from the generator exactly as
# PyTorch's init.py and reset_parameters do: a seeded model starts from PyTorch's numbers.
import torch
import torch.nn as nn


def layers(seed):
    torch.manual_seed(seed)
    lin = nn.Linear(4, 3)
    print(lin.weight.tolist(), lin.bias.tolist())
    print(nn.Linear(3, 2, bias=False).weight.tolist())
    emb = nn.Embedding(5, 3)
    print(emb.weight.tolist())
    ln = nn.LayerNorm(4)
    print(ln.weight.tolist(), ln.bias.tolist())
    big = nn.Linear(64, 32)
    print(sum(big.weight.flatten().tolist()), big.bias.tolist()[:4])
    mlp = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    print(mlp(torch.randn(2, 8)).tolist())


def inits():
    w = torch.zeros(3, 5)
    nn.init.xavier_uniform_(w); print(w.tolist())
    nn.init.xavier_normal_(w, gain=0.5); print(w.tolist())
    nn.init.kaiming_uniform_(w, a=0.1); print(w.tolist())
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"); print(w.tolist())
    nn.init.uniform_(w, -0.5, 0.5); print(w.tolist())
    nn.init.normal_(w, 0.1, 0.02); print(w.tolist())
    # trunc_normal_ goes through Tensor.erfinv_, whose last bit is not PyTorch's yet: 6 places
    nn.init.trunc_normal_(w, std=0.5); print([round(v, 6) for v in w.flatten().tolist()])
    nn.init.trunc_normal_(w, mean=1.0, std=2.0, a=-1.0, b=1.5); print([round(v, 6) for v in w.flatten().tolist()])
    nn.init.sparse_(w, 0.4); print(w.tolist())
    nn.init.constant_(w, 0.25); print(w.tolist())
    nn.init.ones_(w); print(w.sum().item())
    nn.init.zeros_(w); print(w.sum().item())
    nn.init.eye_(w); print(w.tolist())
    c = torch.zeros(2, 2, 3)
    nn.init.dirac_(c); print(c.tolist())
    big = torch.zeros(20, 30)
    nn.init.kaiming_uniform_(big); print(sum(big.flatten().tolist()), big[0].tolist()[:3])
    nn.init.xavier_normal_(big); print(sum(big.flatten().tolist()), big[19].tolist()[-3:])
    print(nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"), nn.init.calculate_gain("selu"))


for seed in [0, 1, 1234]:
    layers(seed)
    torch.manual_seed(seed)
    inits()

try:
    nn.init.xavier_uniform_(torch.zeros(3))
except ValueError as e:
    print("ValueError:", e)
try:
    nn.init.kaiming_uniform_(torch.zeros(3, 3), mode="fan_avg")
except ValueError as e:
    print("ValueError:", e)
