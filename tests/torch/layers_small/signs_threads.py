import torch
import torch.nn.functional as F

# signed zeros and NaN through the activations (ATen: relu keeps -0.0 and NaN, threshold keeps NaN)
x = torch.tensor([-0.0, 0.0, -1.0, 2.0, float("nan")])
for name, f in [("relu", F.relu), ("torch.relu", torch.relu), ("relu6", F.relu6), ("hardtanh", F.hardtanh),
                ("leaky_relu", F.leaky_relu), ("elu", F.elu), ("threshold", lambda t: F.threshold(t, 0.0, 5.0)),
                ("clamp_min", lambda t: t.clamp(min=0)), ("clamp_max", lambda t: t.clamp(max=0))]:
    print(name, [str(v) for v in f(x).tolist()])
y = x.clone()
F.relu(y, inplace=True)
print("relu_", [str(v) for v in y.tolist()])
y = x.clone()
F.threshold(y, 0.0, 5.0, inplace=True)
print("threshold_", [str(v) for v in y.tolist()])
xd = x.double().requires_grad_(True)
F.relu(xd).sum().backward()
print("relu grad", [str(v) for v in xd.grad.tolist()])

torch.set_num_threads(1)
print(torch.get_num_threads())
try:
    torch.set_num_threads(0)
except RuntimeError as e:
    print("RuntimeError:", e)
