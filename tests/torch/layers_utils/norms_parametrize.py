import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import spectral_norm as sn_param


def r(t):
    return [round(v, 4) for v in t.detach().flatten().tolist()]


torch.manual_seed(0)
x = torch.randn(3, 4)

# weight_norm: weight_g / weight_v, the weight recomputed before each forward
m = nn.Linear(4, 3)
m = nn.utils.weight_norm(m)
print(sorted(n for n, _ in m.named_parameters()))
print(m.weight_g.shape, r(m.weight_g), r(m.weight))
y = m(x)
y.pow(2).sum().backward()
print(r(y), r(m.weight_g.grad), r(m.weight_v.grad)[:6])
print(sorted(m.state_dict().keys()))
try:
    nn.utils.weight_norm(m)
except RuntimeError as e:
    print("RuntimeError:", e)
nn.utils.remove_weight_norm(m)
print(sorted(n for n, _ in m.named_parameters()), r(m.weight)[:4])
try:
    nn.utils.remove_weight_norm(m)
except ValueError as e:
    print("ValueError:", str(e).split(" in ")[0])
c = nn.utils.weight_norm(nn.Conv1d(2, 3, 3), dim=None)
print(c.weight_g.shape, r(c.weight_g))
c = nn.utils.weight_norm(nn.Conv1d(2, 3, 3), name="weight", dim=1)
print(c.weight_g.shape, r(c.weight_g))
print(r(torch.norm_except_dim(torch.arange(6.).reshape(2, 3), 2, 1)), r(torch._weight_norm(torch.ones(2, 2), torch.tensor([[2.], [3.]]), 0)))

# spectral_norm (hook form): u, v drawn from the generator after the weight
torch.manual_seed(1)
s = nn.Linear(5, 4)
s = nn.utils.spectral_norm(s)
print(sorted(s.state_dict().keys()), r(s.weight_u), r(s.weight_v))
for step in range(3):
    y = s(x[:, :4].repeat(1, 2)[:, :5])
    print(step, r(y)[:5], r(s.weight_u))
y.sum().backward()
print(r(s.weight_orig.grad)[:6])
s.eval()
y_eval = s(x[:, :4].repeat(1, 2)[:, :5])
print(r(y_eval)[:5])
sd = s.state_dict()
s2 = nn.utils.spectral_norm(nn.Linear(5, 4))
print(s2.load_state_dict(sd))
print(r(s2.weight_u) == r(s.weight_u))
nn.utils.remove_spectral_norm(s)
print(sorted(n for n, _ in s.named_parameters()), sorted(s.state_dict().keys()), len(s._state_dict_hooks), len(s._load_state_dict_pre_hooks))
ct = nn.utils.spectral_norm(nn.ConvTranspose2d(3, 2, 2), n_power_iterations=2)
print(ct.weight_u.shape, ct.weight_v.shape)
try:
    nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
except ValueError as e:
    print("ValueError:", e)

# parametrize


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Scale(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, X):
        return X * self.k

    def right_inverse(self, X):
        return X / self.k


torch.manual_seed(2)
lin = nn.Linear(3, 3)
parametrize.register_parametrization(lin, "weight", Symmetric())
print(type(lin).__name__, parametrize.is_parametrized(lin), parametrize.is_parametrized(lin, "bias"))
print(parametrize.type_before_parametrizations(lin).__name__)
print(lin)
W = lin.weight
print(torch.equal(W, W.T), r(W))
print(sorted(lin.state_dict().keys()))
out = lin(torch.ones(2, 3))
out.sum().backward()
print(r(lin.parametrizations.weight.original.grad))
parametrize.register_parametrization(lin, "weight", Scale(2.0))
print(r(lin.weight))
with parametrize.cached():
    a = lin.weight
    b = lin.weight
    print(a is b)
print(lin.weight is lin.weight)
try:
    lin.weight = torch.eye(3) * 4.0
except RuntimeError as e:
    print("RuntimeError:", e)
lin2 = nn.Linear(3, 3)
parametrize.register_parametrization(lin2, "weight", Scale(4.0))
lin2.weight = torch.eye(3) * 4.0
print(r(lin2.parametrizations.weight.original), r(lin2.weight))
parametrize.remove_parametrizations(lin, "weight")
print(type(lin).__name__, sorted(n for n, _ in lin.named_parameters()), r(lin.weight))

lin2 = nn.Linear(2, 2)
parametrize.register_parametrization(lin2, "bias", Scale(3.0))
print(r(lin2.parametrizations.bias.original), r(lin2.bias))
parametrize.remove_parametrizations(lin2, "bias", leave_parametrized=False)
print(r(lin2.bias))
try:
    parametrize.remove_parametrizations(lin2, "bias")
except ValueError as e:
    print("ValueError:", str(e).split(" does")[1])
try:
    parametrize.register_parametrization(nn.Linear(2, 2), "nope", Scale(1.0))
except ValueError as e:
    print("ValueError:", str(e).split("does not")[1])


class Bad(nn.Module):
    def forward(self, X):
        return X[0]


try:
    parametrize.register_parametrization(nn.Linear(2, 2), "weight", Bad())
except ValueError as e:
    print("ValueError:", e)

# parametrizations.spectral_norm: 15 power iterations at registration
torch.manual_seed(3)
p = sn_param(nn.Linear(4, 3))
print(type(p).__name__, sorted(p.state_dict().keys()))
print(r(p.parametrizations.weight[0]._u), r(p.weight))
y = p(x)
y.sum().backward()
print(r(y), r(p.parametrizations.weight.original.grad)[:6])
b1 = sn_param(nn.Linear(3, 3), name="bias")
print(r(b1.bias))

# float64 finite-difference checks of the decompositions' gradients
from torch.autograd import gradcheck
torch.manual_seed(4)
v = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
g = torch.randn(3, 1, dtype=torch.float64, requires_grad=True)
print(gradcheck(lambda v, g: torch._weight_norm(v, g, 0), (v, g)))
g1 = torch.randn(1, 4, dtype=torch.float64, requires_grad=True)
print(gradcheck(lambda v, g: torch._weight_norm(v, g, 1), (v, g1)))
print(gradcheck(lambda v: F.normalize(v, dim=1), (v,)))
sp = sn_param(nn.Linear(4, 3).double()).eval()
w0 = sp.parametrizations.weight.original.detach().clone().requires_grad_(True)
print(gradcheck(lambda w: sp.parametrizations.weight[0](w), (w0,)))
hs = nn.utils.spectral_norm(nn.Linear(4, 3).double()).eval()
hs(torch.zeros(1, 4, dtype=torch.float64))
print(gradcheck(lambda w: w / torch.dot(hs.weight_u, torch.mv(w, hs.weight_v)), (w0,)))
