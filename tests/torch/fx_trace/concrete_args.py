# concrete_args: control flow on an argument makes tracing fail with TraceError; specialising
# the argument traces one branch, with a placeholder guarded by torch._assert (a bool) or
# _assert_is_none (None).  math.sqrt on a traced value is wrapped automatically (a wrap line on
# top of the code).
import math

import torch
import torch.nn as nn
import torch.fx


def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x, flag, scale=None):
        y = self.lin(x)
        if flag:
            y = y.relu()
        else:
            y = -y
        if scale is not None:
            y = y * scale
        return y / math.sqrt(x.size(-1))


m = Gated()
with torch.no_grad():
    m.lin.weight.copy_(torch.arange(9, dtype=torch.float32).reshape(3, 3) * 0.1 - 0.4)
    m.lin.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))

try:
    torch.fx.symbolic_trace(m)
except torch.fx.proxy.TraceError as e:
    print("TraceError:", e)

x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 3.0]])
for flag in (True, False):
    gm = torch.fx.symbolic_trace(m, concrete_args={"flag": flag, "scale": None})
    print(gm.code)
    print(r(gm(x, flag, None)), r(m(x, flag)))

gm = torch.fx.symbolic_trace(m, concrete_args={"flag": False})
print(gm.code)
print(r(gm(x, False, 2.0)), r(m(x, False, 2.0)))


def f(a, n):
    for _ in range(n):
        a = a * 2 + 1
    return a


gm = torch.fx.symbolic_trace(f, concrete_args={"n": 3})
print(gm.code)
print(r(gm(torch.tensor([1.0, 2.0]), 3)))
