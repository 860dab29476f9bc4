# Natives that read a tensor argument's value (a 0-dim tensor as masked_fill's or fill_'s value):
# while tracing, the argument is a fake, whose storage held no meaningful data, so the compiled
# graph baked whatever the fake's uninitialised memory held into the op (masked_fill wrote
# 5.5e-44 where eager writes 3.5, fill_ 0.0).  Fakes now have no data at all (meta storage): the
# read fails, the call graph-breaks and runs eagerly.  The same for a sampler that fills a
# tensor in place without an op (cauchy_): it wrote into the fake and the graph lost it (the
# compiled function returned empty + x).
import torch


def masked(x, v):
    return x.masked_fill(x > 0, v)


def filled(x, v):
    y = x.clone()
    y.fill_(v)
    return y * 2


def full_like_value(x, v):
    return torch.full_like(x, 1.0) * v + torch.full((2, 3), 4.0)


def scale_then_fill(x, v):
    w = (v * 2).reshape(())
    return x.clone().fill_(w) + 1


def sampled(x):
    return torch.empty(3).cauchy_() + x


x = torch.arange(-3.0, 3.0).reshape(2, 3)
v = torch.tensor(3.5)
for step in range(3):
    print(masked(x, v).tolist())
    print(filled(x, v).tolist())
    print(full_like_value(x, v).tolist())
    print(scale_then_fill(x, v + step).tolist())
    torch.manual_seed(step)
    print(sampled(torch.ones(3)).tolist())
