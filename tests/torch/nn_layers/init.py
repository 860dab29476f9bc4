# torch.nn.init: zeros_, ones_, constant_, eye_, uniform_, normal_, kaiming_uniform_,
# kaiming_normal_, xavier_uniform_, xavier_normal_ (bounds and statistics, since Ember's generator
# draws different numbers), calculate_gain, fan computation, errors; default initialisation of
# Linear, Embedding and LayerNorm by PyTorch's formulas.
import math
import torch
import torch.nn as nn
from torch.nn import init

torch.manual_seed(1)
t = torch.empty(3, 4)
print("zeros_", init.zeros_(t) is t, t.sum().item())
print("ones_", init.ones_(t).sum().item())
print("constant_", init.constant_(t, 2.5)[0].tolist())
print("eye_", init.eye_(torch.empty(2, 3)).tolist())
big = torch.empty(200, 100)
init.uniform_(big, -0.5, 2.0)
print("uniform_ range", big.min().item() >= -0.5, big.max().item() <= 2.0, abs(big.mean().item() - 0.75) < 0.05)
init.normal_(big, mean=3.0, std=0.5)
print("normal_ stats", abs(big.mean().item() - 3.0) < 0.05, abs(big.std().item() - 0.5) < 0.05)
init.kaiming_uniform_(big, a=math.sqrt(5))
bound = 1.0 / math.sqrt(100)
print("kaiming_uniform_ bound", big.abs().max().item() <= bound + 1e-7, big.abs().max().item() > 0.9 * bound)
init.kaiming_uniform_(big, nonlinearity="relu", mode="fan_out")
bound = math.sqrt(6.0 / 200)
print("kaiming_uniform_ relu fan_out", big.abs().max().item() <= bound + 1e-7, big.abs().max().item() > 0.9 * bound)
init.kaiming_normal_(big, nonlinearity="relu")
print("kaiming_normal_ std", abs(big.std().item() - math.sqrt(2.0 / 100)) < 0.01)
init.xavier_uniform_(big, gain=2.0)
bound = 2.0 * math.sqrt(6.0 / 300)
print("xavier_uniform_", big.abs().max().item() <= bound + 1e-7, big.abs().max().item() > 0.9 * bound)
init.xavier_normal_(big)
print("xavier_normal_ std", abs(big.std().item() - math.sqrt(2.0 / 300)) < 0.01)
for nl in ("linear", "sigmoid", "tanh", "relu", "leaky_relu", "selu"):
    print("gain", nl, round(init.calculate_gain(nl), 6))
print("gain leaky 0.2", round(init.calculate_gain("leaky_relu", 0.2), 6))
print("fans", init._calculate_fan_in_and_fan_out(torch.empty(5, 3)), init._calculate_fan_in_and_fan_out(torch.empty(4, 2, 3, 3)))
for bad in (lambda: init.calculate_gain("swish"), lambda: init.xavier_uniform_(torch.empty(3)),
            lambda: init.kaiming_uniform_(torch.empty(2, 2), mode="fan_avg")):
    try:
        bad()
    except ValueError as e:
        print("ValueError", e)
w = nn.Parameter(torch.ones(2, 2))
init.zeros_(w)
print("init leaves params as leaves", w.is_leaf, w.requires_grad, w.grad_fn)

lin = nn.Linear(50, 20)
b = 1.0 / math.sqrt(50)
print("Linear default", lin.weight.abs().max().item() <= b, lin.bias.abs().max().item() <= b,
      lin.weight.abs().max().item() > 0.8 * b, lin.weight.std().item() > 0.4 * b)
emb = nn.Embedding(1000, 10)
print("Embedding default normal", abs(emb.weight.mean().item()) < 0.05, abs(emb.weight.std().item() - 1.0) < 0.05)
ln = nn.LayerNorm(4)
print("LayerNorm default", ln.weight.tolist(), ln.bias.tolist())
