# LayerNorm gradients (Ember's fused native_layer_norm_backward without create_graph): float32 and
# float64, one and two normalized dims, without affine, the whole input normalized; a
# double backward (create_graph) through the composed formula.
import torch, torch.nn as nn
torch.manual_seed(0)
for dt in (torch.float32, torch.float64):
    for shape, ns, aff in (((4, 5, 6), (6,), True), ((3, 4, 5), (4, 5), True), ((7, 8), (8,), False), ((2, 3), (2, 3), True)):
        x = torch.randn(*shape, dtype=dt, requires_grad=True)
        ln = nn.LayerNorm(ns, elementwise_affine=aff).to(dt)
        if aff:
            with torch.no_grad():
                ln.weight.copy_(torch.randn(ns, dtype=dt)); ln.bias.copy_(torch.randn(ns, dtype=dt))
        g = torch.randn(*shape, dtype=dt)
        (ln(x) * g).sum().backward()
        out = [round(v, 5) for v in x.grad.reshape(-1).tolist()[:6]]
        if aff:
            out += [round(v, 5) for v in ln.weight.grad.reshape(-1).tolist()[:4]] + [round(v, 5) for v in ln.bias.grad.reshape(-1).tolist()[:4]]
        print(dt, shape, ns, out)
x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
ln = nn.LayerNorm(4).double()
c = torch.randn(3, 4, dtype=torch.float64)
(gx,) = torch.autograd.grad(((ln(x) * c) ** 3).sum(), x, create_graph=True)
(gx * torch.linspace(-1.0, 2.0, 12, dtype=torch.float64).reshape(3, 4)).sum().backward()
print("double backward", [round(v, 5) + 0.0 for v in x.grad.reshape(-1).tolist()[:6]],
      [round(v, 5) + 0.0 for v in ln.weight.grad.tolist()])
