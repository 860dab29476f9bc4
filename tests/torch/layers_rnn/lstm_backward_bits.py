# nn.LSTM's backward bits as PyTorch 1.13's CPU LSTM computes them: autograd over the cell's ATen
# ops (linear, add_, unsafe_chunk, sigmoid_ / tanh_, mul, add_, tanh, mul), so each step's
# gradients round as tanh_backward (1 - y*y rounded once on an FMA CPU) and sigmoid_backward
# ((g * (1 - y)) * y) do, and the sigmoids' forward takes libm's exp on each row's tail (the last
# H % 16 floats, H % 8 doubles).  Gradients of the weights, biases, input, h0 and c0 (their hashes
# and a few values) for hidden sizes 16, 32, 200 and 13, one and two layers, bidirectional,
# without biases, batch_first, float64, and the losses that leave the last step's dh or dc absent.
import hashlib
import torch
import torch.nn as nn

H = lambda t: hashlib.sha1(' '.join(v.hex() for v in t.double().flatten().tolist()).encode()).hexdigest()[:12]


def case(inp, hid, layers=1, bidir=False, bias=True, bf=False, dtype=torch.float32, T=9, B=3, h0=True, loss='all'):
    torch.manual_seed(hid * 7 + layers)
    rnn = nn.LSTM(inp, hid, layers, bias=bias, batch_first=bf, bidirectional=bidir).to(dtype)
    D = 2 if bidir else 1
    x = torch.randn((B, T, inp) if bf else (T, B, inp), dtype=dtype, requires_grad=True)
    hx = None
    if h0:
        hx = (torch.randn(layers * D, B, hid, dtype=dtype, requires_grad=True),
              torch.randn(layers * D, B, hid, dtype=dtype, requires_grad=True))
    out, (h, c) = rnn(x, hx)
    wo, wh, wc = (torch.randn(t.shape, dtype=dtype) for t in (out, h, c))
    if loss == 'all':
        l = (out * wo).sum() + (h * wh).sum() + (c * wc).sum()
    elif loss == 'out':
        l = (out * wo).sum()
    else:
        l = (c * wc).sum()
    l.backward()
    grads = [x.grad] + ([hx[0].grad, hx[1].grad] if h0 else []) + [p.grad for p in rnn.parameters()]
    print(hid, layers, bidir, bias, bf, str(dtype)[6:], loss, ' '.join(H(g) for g in grads))
    print('   ', repr(l.item()), [repr(v) for v in rnn.weight_hh_l0.grad[0, :3].tolist()])


case(16, 16)
case(16, 16, loss='out', h0=False)
case(16, 16, loss='c')
case(20, 32, layers=2)
case(20, 32, bias=False, bf=True)
case(16, 16, layers=2, bidir=True)
case(10, 13)
case(10, 13, dtype=torch.float64, layers=2, bidir=True)
case(16, 16, dtype=torch.float64, bf=True)
case(30, 200, T=5, B=2)

# the shape of pytorch/examples' word_language_model: embedding, 2-layer LSTM, decoder, loss
torch.manual_seed(1111)
enc, rnn, dec = nn.Embedding(50, 24), nn.LSTM(24, 24, 2), nn.Linear(24, 50)
ids = torch.randint(0, 50, (12, 4))
out, _ = rnn(enc(ids))
loss = nn.functional.cross_entropy(dec(out).view(-1, 50), torch.randint(0, 50, (48,)))
loss.backward()
print(repr(loss.item()), H(enc.weight.grad), ' '.join(H(p.grad) for p in rnn.parameters()), H(dec.weight.grad))
print(sum(p.grad.abs().sum().item() for p in rnn.parameters()).hex())
