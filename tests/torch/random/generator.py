# PyTorch's CPU generator bit for bit: manual_seed over seeds and sizes around randn's
# vectorised path (16 elements), rand/randint/randperm, strided fills, the Box-Muller cache,
# torch.Generator objects, get_rng_state/set_rng_state and fork_rng.  Values printed with
# tolist() (full float repr) so every bit is compared.
import torch


def draws(seed):
    torch.manual_seed(seed)
    for n in [1, 2, 3, 15, 16, 17, 31, 33, 1000]:
        a = torch.rand(n).tolist()
        b = torch.randn(n).tolist()
        c = torch.randint(-5, 1000, (n,)).tolist()
        d = torch.randperm(n).tolist()
        print(seed, n, a[-2:], b[-3:], sum(b), c[-3:], d[-3:], sorted(d) == list(range(n)))


def fills():
    t = torch.zeros(3, 7)
    t.t().uniform_(-2, 3)
    print(t.tolist())
    t = torch.zeros(40)
    t[::2].normal_(1.5, 2.0)
    print(t.tolist())
    print(torch.zeros(100).normal_(-3, 0.5).tolist()[::9])
    print(torch.zeros(10).normal_(-3, 0.5).tolist())
    print(torch.randn(4, 5).tolist())
    print(torch.randint(10, (3, 3)).tolist(), torch.randint(0, 2 ** 40, (4,)).tolist())
    print(torch.randint(3, 9, (2, 2), dtype=torch.float32).tolist())


for seed in [0, 1, 7, 42, 12345, 2 ** 40 + 3]:
    draws(seed)
    fills()

# the Box-Muller cache: an odd count leaves a sample for the next call
torch.manual_seed(5)
print(torch.randn(3).tolist(), torch.randn(1).tolist(), torch.randn(2).tolist())

print(torch.manual_seed(0) is torch.default_generator, torch.initial_seed())
torch.manual_seed(-1)
print(torch.initial_seed(), torch.rand(2).tolist())
torch.manual_seed(2 ** 64 - 1)
print(torch.initial_seed(), torch.rand(2).tolist())

g = torch.Generator()
print(g.initial_seed(), g.device)
print(g.manual_seed(3) is g)
print(torch.rand(3, generator=g).tolist(), torch.randn(3, generator=g).tolist())
print(torch.randperm(7, generator=g).tolist(), torch.randint(0, 5, (6,), generator=g).tolist())
print(torch.zeros(4).uniform_(generator=g).tolist(), torch.zeros(3).normal_(generator=g).tolist())
g2 = torch.Generator().manual_seed(3)
print(torch.rand(3, generator=g2).tolist())
state = g.get_state()
x = torch.randn(5, generator=g)
g.set_state(state)
print(torch.equal(x, torch.randn(5, generator=g)))

torch.manual_seed(11)
s = torch.get_rng_state()
print(s.shape, s[:24].tolist(), s[5016:].tolist())
a = torch.randn(5)          # leaves a cached sample
s2 = torch.get_rng_state()
print(s2[5040:5044].tolist(), s2[8:12].tolist())
b = torch.randn(5)
torch.set_rng_state(s)
print(torch.randn(5).tolist() == a.tolist(), torch.randn(5).tolist() == b.tolist())
torch.set_rng_state(s2)
print(torch.randn(5).tolist() == b.tolist())

torch.manual_seed(2)
with torch.random.fork_rng():
    inner = torch.rand(3)
outer = torch.rand(3)
print(torch.equal(inner, outer))

try:
    torch.set_rng_state(s[:100])
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.zeros(2).normal_(generator=5)
except TypeError as e:
    print("TypeError:", e)
