# PyTorch 1.13's CPU dropout returns its input itself (no copy, no autograd node) when p == 0,
# out of training, or for an empty input: F.dropout, torch.dropout, nn.Dropout, inplace too;
# torch.dropout's own check of p raises RuntimeError (F.dropout's ValueError comes first).
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.rand(3, requires_grad=True)
z = x * 2
for label, f in (("F p=0", lambda t: F.dropout(t, 0.0)),
                 ("F eval", lambda t: F.dropout(t, 0.5, training=False)),
                 ("F p=0 inplace", lambda t: F.dropout(t.detach(), 0.0, inplace=True)),
                 ("torch p=0", lambda t: torch.dropout(t, 0.0, True)),
                 ("torch eval", lambda t: torch.dropout(t, 0.3, False)),
                 ("module p=0", lambda t: nn.Dropout(0.0)(t)),
                 ("module eval", lambda t: nn.Dropout(0.5).eval()(t))):
    y = f(z)
    print(label, y is z, type(y.grad_fn).__name__, y.requires_grad)
leaf = torch.ones(2, 2, requires_grad=True)
print("leaf", F.dropout(leaf, 0.0) is leaf, F.dropout(leaf, 0.0).grad_fn)
d = z.detach()
print("inplace", F.dropout(d, 0.0, inplace=True) is d)
e = torch.rand(0, 4, requires_grad=True)
print("empty", F.dropout(e, 0.5) is e, torch.dropout(e, 0.5, True) is e, nn.Dropout(0.9)(e) is e)
y = F.dropout(z, 0.0)
y.sum().backward()
print("grad through identity", x.grad.tolist())
for f in (lambda: torch.dropout(z, 1.5, False), lambda: torch.dropout(z, -0.5, True)):
    try:
        f()
    except RuntimeError as ex:
        print("RuntimeError", ex)
try:
    F.dropout(z, 1.5, training=False)
except ValueError as ex:
    print("ValueError", ex)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.drop = nn.Dropout(0.0)

    def forward(self, t):
        return self.drop(self.lin(t))


torch.manual_seed(0)
b = Block()
out = b(torch.ones(2, 4))
print("module chain", out.requires_grad, [round(v, 4) for v in out.reshape(-1).tolist()])
