# torch.memory_format: the *_like factories, clone, contiguous, to, is_contiguous, empty and
# Module.to lay tensors out as PyTorch 1.13 does (strides, contiguity flags, and the random
# streams, which a non-contiguous *_like draws through the strided kernels)
import torch
import torch.nn as nn

print(torch.contiguous_format, torch.preserve_format, torch.channels_last, torch.channels_last_3d)
print(type(torch.channels_last), torch.channels_last == torch.channels_last, torch.channels_last != torch.contiguous_format)

t = torch.arange(12.).reshape(3, 4).t()                    # dense, transposed
z = torch.randn(3, 4, 6).permute(2, 0, 1)[::2]              # neither dense nor contiguous
w = torch.arange(120.).reshape(2, 3, 4, 5).permute(0, 2, 3, 1)[:, :, ::2]
o = torch.randn(1, 3, 1, 1).permute(0, 2, 3, 1)             # size-1 dims with odd strides
for name, x in [("t", t), ("z", z), ("w", w), ("o", o)]:
    print(name, tuple(x.shape), x.stride())
    print("  like", torch.empty_like(x).stride(), torch.zeros_like(x).stride(), torch.ones_like(x).stride(),
          torch.full_like(x, 7).stride(), torch.rand_like(x).stride(), torch.randn_like(x).stride(),
          torch.randint_like(x, 5).stride())
    print("  like contiguous", torch.zeros_like(x, memory_format=torch.contiguous_format).stride(),
          torch.randn_like(x, memory_format=torch.contiguous_format).stride())
    print("  clone", x.clone().stride(), x.clone(memory_format=torch.contiguous_format).stride(),
          x.clone(memory_format=torch.preserve_format).stride())
    print("  to", x.to(torch.float64).stride(), x.double().stride(), x.to(memory_format=torch.contiguous_format).stride())
    print("  contiguous", x.contiguous().stride(), x.is_contiguous())
    print("  values", torch.equal(x.clone(), x), torch.equal(x.contiguous(), x), torch.equal(torch.full_like(x, 7), x * 0 + 7))

# the random *_like ops on a transposed input: PyTorch fills the strided tensor (its serial
# kernels, memory order), so the draws differ from the contiguous call's
torch.manual_seed(0)
big = torch.empty(8, 5).t()
print(torch.randn_like(big))
print(torch.rand_like(big))
print(torch.randint_like(big, 3, 9))
print(torch.randint_like(big, 4, dtype=torch.int64))
print(torch.randn_like(big, memory_format=torch.contiguous_format))
g = torch.Generator().manual_seed(3)
print(torch.randn(4, 6, generator=g).t().contiguous().stride())

# channels_last
c = torch.arange(120.).reshape(2, 3, 4, 5)
cl = c.contiguous(memory_format=torch.channels_last)
print(cl.stride(), cl.is_contiguous(), cl.is_contiguous(memory_format=torch.channels_last), torch.equal(cl, c))
print(c.is_contiguous(memory_format=torch.channels_last), c.is_contiguous(memory_format=torch.contiguous_format))
print(c.to(memory_format=torch.channels_last).stride(), cl.to(memory_format=torch.contiguous_format).stride())
print(cl.to(torch.float64).stride(), cl.to(torch.float64, memory_format=torch.contiguous_format).stride())
print(cl.contiguous().stride(), cl.clone().stride(), (cl + 1).stride(), (cl * c).stride(), torch.relu(cl).stride())
print(torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride(), torch.empty(2, 3, 4, 5).stride())
print(torch.empty_like(cl).stride(), torch.zeros_like(cl, memory_format=torch.contiguous_format).stride(),
      torch.ones_like(c, memory_format=torch.channels_last).stride())
c3 = torch.arange(240.).reshape(2, 3, 2, 4, 5)
print(c3.contiguous(memory_format=torch.channels_last_3d).stride(),
      c3.contiguous(memory_format=torch.channels_last_3d).is_contiguous(memory_format=torch.channels_last_3d))
print(cl.sum().item(), cl.sum(1).stride(), cl.view(2, 4, 5, 3) if False else cl.permute(0, 2, 3, 1).is_contiguous())
print(torch.randn(1, 3, 1, 1).is_contiguous(memory_format=torch.channels_last))

# to(copy=True) copies even when nothing changes
a = torch.ones(3)
b = a.to(torch.float32, copy=True)
b.add_(1)
print(a, b, a.to(torch.float32) is a, a.to(copy=False) is a, a.to(memory_format=torch.preserve_format) is a)

# Module.to(memory_format=): 4-D parameters laid out, others left alone
torch.manual_seed(0)
m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Linear(5, 2))
m.to(memory_format=torch.channels_last)
print([tuple(p.stride()) for p in m.parameters()])
y = m[0](torch.randn(2, 3, 7, 7).contiguous(memory_format=torch.channels_last))
print(tuple(y.shape), round(y.sum().item(), 3))

for bad in [lambda: torch.randn(2, 3).contiguous(memory_format=torch.channels_last),
            lambda: torch.randn(2, 3).to(memory_format=torch.channels_last),
            lambda: torch.randn(2, 3, 4).clone(memory_format=torch.channels_last),
            lambda: torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last_3d),
            lambda: torch.randn(2, 3).t().contiguous(memory_format=torch.preserve_format),
            lambda: torch.zeros_like(torch.randn(2, 3), memory_format=torch.channels_last)]:
    try:
        bad()
        print("no error")
    except RuntimeError as e:
        print("RuntimeError:", e)


# inside a function (compiled under --compile-all): the layouts flow through the traced graph
def laid_out(x, y):
    a = x.contiguous(memory_format=torch.channels_last) * 2
    b = torch.zeros_like(y) + y
    c = y.clone() + 1
    d = x.to(torch.float64, memory_format=torch.channels_last)
    e = torch.ones_like(x, memory_format=torch.channels_last) + a
    return a, b, c, d, e


for r in laid_out(torch.arange(120.).reshape(2, 3, 4, 5), torch.arange(12.).reshape(3, 4).t()):
    print(r.stride(), r.is_contiguous(), r.is_contiguous(memory_format=torch.channels_last), r.sum().item())
