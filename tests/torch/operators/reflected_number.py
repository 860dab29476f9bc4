"""number OP tensor for every binary operator, the number a float argument or an int / float
attribute: compiled, such a number stays symbolic (a wrapped tensor in the trace), while eager
reaches the tensor's reflected method (__rsub__, __rtruediv__ = reciprocal * number, __rpow__ ...);
the two must give the same dtypes and bits."""
import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 3
        self.s = 1.7

    def forward(self, x, i, f):
        outs = [f + x, f - x, f * x, f / x, f // x, f % x, f ** x,
                self.s - x, self.s / x, self.s ** x, self.k - x, self.k / x, self.k // x, self.k % x, self.k ** x,
                self.k - i, self.k // i, self.k % i, self.k ** i, self.k & i, self.k | i, self.k ^ i,
                self.k << i, self.k >> i, f - i, f / i, f ** i, f % i]
        return outs

torch.manual_seed(0)
m = M()
x = torch.randn(6) * 3
i = torch.tensor([1, 2, 3, 4, 5, 6])
for f in (0.3, 2.5):
    for o in m(x, i, f):
        print(o.dtype, o.tolist())
