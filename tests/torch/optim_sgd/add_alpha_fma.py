# x.add(y, alpha=a) and x.sub(y, alpha=a) on floats are ATen's fused multiply-add fma(y, a, x),
# one rounding (ufunc::add's vector form is vec::fmadd; sub is add with -alpha), not x + a * y
# rounded twice, which differed in about 9% of float32 elements.  The optimizers' updates are such
# adds (param.add_(grad, alpha=-lr), the weight decay, momentum's buf.add_(d_p, alpha=1-dampening)),
# so a training loop printing its loss in full printed other digits from the second step on.
# Hex of sums and CRCs of every element, and the losses as float reprs; the steps run in
# functions, so --compile-all runs them compiled.  (Not covered, as they still differ: x.add(3.0,
# alpha=a) with a Python scalar, where ATen fuses only whole 16-element blocks; and fused backward
# kernels such as tanh's, whose 1 - y * y ATen's compiler contracts into a multiply-add.)
import zlib

import torch

torch.manual_seed(11)


def crc(t):
    v = [x.hex() for x in t.detach().double().flatten().tolist()]
    return "%08x" % zlib.crc32(" ".join(v).encode())


def adds(a, b, c):
    return (torch.add(a, b, alpha=0.1), torch.sub(a, b, alpha=0.3), a.add(b, alpha=-2.5), a - 0.7 * b,
            c.add(c, alpha=0.37))


for n in (3, 8, 16, 17, 33, 100, 1001):
    a, b = torch.randn(n), torch.randn(n)
    c = torch.randn(n, dtype=torch.float64)
    print(n, " ".join(crc(t) for t in adds(a, b, c)))
x = torch.randn(20)
x.add_(torch.randn(20), alpha=0.01)
x.sub_(torch.randn(20), alpha=0.02)
print(crc(x))


def train(opt_fn, steps=4):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 2))
    opt = opt_fn(m.parameters())
    xs = torch.randn(8, 5)
    ys = torch.randn(8, 2)

    def step():
        opt.zero_grad()
        loss = ((m(xs) - ys) ** 2).mean()
        loss.backward()
        opt.step()
        return loss

    losses = [repr(step().item()) for _ in range(steps)]
    return losses, crc(torch.cat([p.flatten() for p in m.parameters()]))


def show(name, losses, params):
    # Adam's own last-step parameters still differ in the last bit (its addcdiv / lerp, which
    # ATen's compiler contracts too): its losses, which went through three updates, are printed
    print(name, losses, params if name.startswith("sgd") else "")


for name, fn in [("sgd", lambda p: torch.optim.SGD(p, lr=0.1)),
                 ("sgd_wd", lambda p: torch.optim.SGD(p, lr=0.05, weight_decay=0.01)),
                 ("sgd_momentum", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, dampening=0.1)),
                 ("sgd_nesterov", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True)),
                 ("adam", lambda p: torch.optim.Adam(p, lr=0.01)),
                 ("adam_l2", lambda p: torch.optim.Adam(p, lr=0.01, weight_decay=0.1)),
                 ("adamw", lambda p: torch.optim.AdamW(p, lr=0.01))]:
    show(name, *train(fn))
