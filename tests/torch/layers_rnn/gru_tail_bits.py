# nn.GRU / nn.GRUCell of hidden sizes that are not multiples of 16 (float32) / 8 (float64), bit
# for bit as PyTorch 1.13's CPU GRUCell computes them: it takes the reset and update gates'
# sigmoid_ in place on (B, H) chunks of the (B, 3H) hidden projection, one row at a time, so
# libm's exp (not Sleef's) gives the last H % 16 elements of every row.  Regression: Ember took
# the sigmoid of the contiguous (B, H) sum, one run with one tail, and about half the gate
# elements of hidden 200 differed in the last bit (word_language_model --model GRU --nhid 200
# diverged in its first batch's gradients).
import hashlib
import torch
import torch.nn as nn

H = lambda t: hashlib.sha1(' '.join(v.hex() for v in t.double().flatten().tolist()).encode()).hexdigest()[:12]


def case(inp, hid, layers=1, bidir=False, bf=False, dtype=torch.float32, T=6, B=3):
    torch.manual_seed(hid * 7 + layers)
    m = nn.GRU(inp, hid, layers, batch_first=bf, bidirectional=bidir).to(dtype)
    D = 2 if bidir else 1
    x = torch.randn((B, T, inp) if bf else (T, B, inp), dtype=dtype, requires_grad=True)
    h0 = torch.randn(layers * D, B, hid, dtype=dtype, requires_grad=True)
    out, h = m(x, h0)
    l = (out * torch.randn(out.shape, dtype=dtype)).sum() + (h * torch.randn(h.shape, dtype=dtype)).sum()
    l.backward()
    grads = [x.grad, h0.grad] + [p.grad for p in m.parameters()]
    print(hid, layers, bidir, bf, str(dtype)[6:], H(out), H(h), ' '.join(H(g) for g in grads))
    print('   ', repr(l.item()), [repr(v) for v in out[-1, 0, -3:].tolist()])


case(16, 200)
case(24, 72, layers=2)
case(13, 13, bidir=True, bf=True)
case(16, 65, B=1)
case(12, 20, dtype=torch.float64)
case(12, 13, layers=2, dtype=torch.float64)

torch.manual_seed(3)
cell = nn.GRUCell(8, 40)
x, h = torch.randn(4, 8, requires_grad=True), torch.randn(4, 40, requires_grad=True)
y = cell(x, h)
y.pow(2).sum().backward()
print(H(y), H(x.grad), H(h.grad), H(cell.weight_hh.grad), y.grad_fn.name())
y1 = cell(x[0], h[0])
print(H(y1), tuple(y1.shape))
