# nn.GRU and nn.RNN (tanh, relu): outputs and gradients bit for bit as PyTorch 1.13's CPU cells
# compute them: GRU's new state (h - n) * z + n, tanh's backward through ATen's tanh_backward
# (1 - y*y rounded once on an FMA CPU, float64 included).  Hidden sizes are multiples of 16;
# gru_tail_bits.py has the others (the gates' libm row tails).
import hashlib
import torch
import torch.nn as nn

H = lambda t: hashlib.sha1(' '.join(v.hex() for v in t.double().flatten().tolist()).encode()).hexdigest()[:12]


def case(kind, inp, hid, layers=1, bidir=False, bias=True, bf=False, dtype=torch.float32, T=8, B=3):
    torch.manual_seed(hid * 5 + layers)
    if kind == 'GRU':
        m = nn.GRU(inp, hid, layers, bias=bias, batch_first=bf, bidirectional=bidir)
    else:
        m = nn.RNN(inp, hid, layers, nonlinearity=kind, bias=bias, batch_first=bf, bidirectional=bidir)
    m = m.to(dtype)
    D = 2 if bidir else 1
    x = torch.randn((B, T, inp) if bf else (T, B, inp), dtype=dtype, requires_grad=True)
    h0 = torch.randn(layers * D, B, hid, dtype=dtype, requires_grad=True)
    out, h = m(x, h0)
    l = (out * torch.randn(out.shape, dtype=dtype)).sum() + (h * torch.randn(h.shape, dtype=dtype)).sum()
    l.backward()
    grads = [x.grad, h0.grad] + [p.grad for p in m.parameters()]
    print(kind, hid, layers, bidir, bias, bf, str(dtype)[6:], H(out), H(h), ' '.join(H(g) for g in grads))
    print('   ', repr(l.item()), [repr(v) for v in m.weight_hh_l0.grad[0, :3].tolist()])


for kind in ('GRU', 'tanh', 'relu'):
    case(kind, 16, 16)
    case(kind, 20, 32, layers=2, bf=True)
    case(kind, 16, 16, layers=2, bidir=True, bias=False)
    case(kind, 12, 16, dtype=torch.float64)
case('tanh', 10, 13, dtype=torch.float64, layers=2, bidir=True)

cell = nn.GRUCell(8, 16)
x, h = torch.randn(4, 8, requires_grad=True), torch.randn(4, 16, requires_grad=True)
y = cell(x, h)
y.pow(2).sum().backward()
print(H(y), H(x.grad), H(h.grad), H(cell.weight_hh.grad), y.grad_fn.name())
