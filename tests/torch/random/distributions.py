# torch.distributions draw from the generator through the same calls as PyTorch (torch.normal,
# Tensor.normal_, torch.rand, torch.bernoulli, torch.multinomial), so seeded samples print
# PyTorch's numbers; log_prob/entropy go through pointwise kernels (exp/log) whose last bit is
# not this golden's subject, so they print to 5 places.
import torch
from torch.distributions import Bernoulli, Categorical, MultivariateNormal, Normal, OneHotCategorical, Uniform


def r(t):
    return [round(v, 5) for v in t.flatten().tolist()]


torch.manual_seed(0)
n = Normal(torch.tensor([0.0, 1.0, -2.0]), torch.tensor([1.0, 0.5, 2.0]))
print(n, n.batch_shape, n.event_shape)
print(n.sample().tolist(), n.sample((2,)).tolist())
x = n.rsample((4,))
print(x.tolist())
print(r(n.log_prob(torch.tensor([0.5, 0.5, 0.5]))), r(n.entropy()), n.mean.tolist(), n.stddev.tolist())
s = Normal(0.0, 1.0)
print(s, s.batch_shape, s.sample().tolist(), s.sample((20,)).tolist())
loc = torch.zeros(2, requires_grad=True)
y = Normal(loc, torch.ones(2)).rsample((3,))
y.sum().backward()
print(y.tolist(), loc.grad.tolist())

u = Uniform(torch.tensor([0.0, -1.0]), torch.tensor([1.0, 3.0]))
print(u, u.sample().tolist(), u.rsample((3,)).tolist())
print(r(u.log_prob(torch.tensor([0.5, 2.0]))), r(u.entropy()))
print(Uniform(2.0, 5.0).sample((5,)).tolist())

b = Bernoulli(torch.tensor([0.1, 0.5, 0.9]))
print(b, b.sample().tolist(), b.sample((3,)).tolist())
print(r(b.log_prob(torch.tensor([1.0, 0.0, 1.0]))), r(b.entropy()))
bl = Bernoulli(logits=torch.tensor([-1.0, 2.0]))
print(r(bl.probs), bl.sample((4,)).tolist())
print(Bernoulli(0.3).sample((6,)).tolist())

c = Categorical(torch.tensor([0.1, 0.2, 0.3, 0.4]))
print(c, c.sample().tolist(), c.sample((10,)).tolist())
print(r(c.log_prob(torch.tensor([0, 3, 2]))), r(c.entropy()))
c2 = Categorical(logits=torch.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]]))
print(c2.batch_shape, c2.sample().tolist(), c2.sample((2, 3)).tolist(), r(c2.probs), r(c2.entropy()))
print(r(c2.log_prob(torch.tensor([2, 0]))))

oh = OneHotCategorical(torch.tensor([0.2, 0.3, 0.5]))
print(oh.event_shape, oh.sample().tolist(), oh.sample((4,)).tolist())
print(r(oh.log_prob(torch.tensor([0.0, 1.0, 0.0]))), r(oh.entropy()))

L = torch.tensor([[1.0, 0.0], [0.5, 2.0]])
mvn = MultivariateNormal(torch.tensor([1.0, -1.0]), scale_tril=L)
print(mvn.batch_shape, mvn.event_shape, mvn.sample().tolist(), mvn.rsample((3,)).tolist())
print(r(mvn.log_prob(torch.tensor([0.0, 0.0]))), r(mvn.entropy()), mvn.covariance_matrix.tolist())

g = torch.Generator().manual_seed(9)
print(torch.rand(3).tolist())


def error(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__ + ":", e)


error(lambda: Normal(torch.tensor([0.0]), torch.tensor([-1.0])))
error(lambda: Bernoulli(torch.tensor([1.5])))
error(lambda: Bernoulli())
error(lambda: n.log_prob(torch.zeros(2)))
error(lambda: Bernoulli(0.5).log_prob(torch.tensor(0.5)))
error(lambda: Uniform(1.0, 0.0))
error(lambda: Categorical(torch.tensor([0.5, 0.5])).log_prob(torch.tensor([2])))
