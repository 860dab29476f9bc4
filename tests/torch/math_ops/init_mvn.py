# nn.init.orthogonal_ from a seeded generator (normal_ then QR, signs fixed by R's diagonal) and
# torch.distributions.MultivariateNormal with covariance_matrix / precision_matrix / scale_tril:
# sample, rsample, log_prob, entropy, derived matrices, gradients through rsample and log_prob
import torch
from torch import nn
from torch.distributions import MultivariateNormal

torch.manual_seed(0)
w = torch.empty(3, 5)
nn.init.orthogonal_(w)
print(w)
print(w @ w.t())
w2 = torch.empty(6, 2, 2)
nn.init.orthogonal_(w2, gain=2.0)
print(w2)
lin = nn.Linear(4, 4)
nn.init.orthogonal_(lin.weight)
print(lin.weight.detach())
torch.manual_seed(3)
print(nn.init.orthogonal_(torch.empty(2, 4, dtype=torch.float64)))

loc = torch.tensor([1., -1., 0.5])
cov = torch.tensor([[2., 0.5, 0.1], [0.5, 1., 0.3], [0.1, 0.3, 1.5]])
for kw in ({'covariance_matrix': cov}, {'precision_matrix': torch.linalg.inv(cov)}, {'scale_tril': torch.linalg.cholesky(cov)}):
    torch.manual_seed(1)
    d = MultivariateNormal(loc, **kw)
    s = d.sample()
    r = d.rsample((2,))
    print(s, r)
    print(d.log_prob(s), d.log_prob(r), d.entropy())
    print(d.scale_tril, d.covariance_matrix, d.precision_matrix, d.mean, d.variance)
    print(d.batch_shape, d.event_shape)

bl = torch.zeros(2, 3)
bcov = torch.stack([cov, cov * 2])
torch.manual_seed(2)
db = MultivariateNormal(bl, covariance_matrix=bcov)
x = db.sample((4,))
print(x.shape, db.log_prob(x), db.entropy())

L = torch.linalg.cholesky(cov).requires_grad_()
m = loc.clone().requires_grad_()
torch.manual_seed(5)
d = MultivariateNormal(m, scale_tril=L)
v = d.rsample((3,))
(v.sum() + d.log_prob(v.detach()).sum() + d.entropy()).backward()
print(m.grad, L.grad)
C = cov.clone().requires_grad_()
d = MultivariateNormal(loc, covariance_matrix=C)
d.log_prob(torch.tensor([0., 0., 1.])).backward()
print(C.grad)
try:
    MultivariateNormal(loc, covariance_matrix=torch.tensor([[1., 2., 0.], [2., 1., 0.], [0., 0., 1.]]))
except ValueError as e:
    print("ValueError", str(e).split("\n")[0][:60])
try:
    MultivariateNormal(loc)
except ValueError as e:
    print("ValueError", e)
