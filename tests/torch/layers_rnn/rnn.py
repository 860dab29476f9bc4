import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence


def fill(m, scale=0.125):
    with torch.no_grad():
        for i, (n, p) in enumerate(m.named_parameters()):
            p.copy_(((torch.arange(p.numel(), dtype=torch.float32) * (5 + i) % 11 - 5) * scale / 4).reshape(p.shape))


x = ((torch.arange(5 * 3 * 4, dtype=torch.float32) % 9 - 4) * 0.25).reshape(5, 3, 4)


def run(name, m, inp, hx=None):
    fill(m)
    inp = inp.clone().requires_grad_(True)
    out, h = m(inp) if hx is None else m(inp, hx)
    loss = out.sum() + (h[0].sum() + h[1].sum() if isinstance(h, tuple) else h.sum())
    loss.backward()
    print(name, m)
    print(" out", tuple(out.shape), out.detach().flatten()[:6])
    if isinstance(h, tuple):
        print(" h", tuple(h[0].shape), h[0].detach().flatten()[:4], "c", tuple(h[1].shape), h[1].detach().flatten()[:4])
    else:
        print(" h", tuple(h.shape), h.detach().flatten()[:4])
    print(" dx", inp.grad.flatten()[:6])
    first = next(iter(m.named_parameters()))
    print(" d" + first[0], first[1].grad.flatten()[:4])


run("lstm", nn.LSTM(4, 6), x)
run("lstm2 bi", nn.LSTM(4, 5, num_layers=2, bidirectional=True), x)
run("lstm batch_first proj", nn.LSTM(4, 6, batch_first=True, proj_size=3), x)
run("lstm h0", nn.LSTM(4, 3), x, (torch.ones(1, 3, 3) * 0.5, torch.ones(1, 3, 3) * -0.25))
run("gru", nn.GRU(4, 6, num_layers=2), x)
run("gru bi bf", nn.GRU(4, 3, bidirectional=True, batch_first=True), x)
run("rnn tanh", nn.RNN(4, 5), x)
run("rnn relu nobias", nn.RNN(4, 5, nonlinearity="relu", bias=False, num_layers=2), x)
run("lstm unbatched", nn.LSTM(4, 3), x[:, 0])
m = nn.LSTM(4, 5, num_layers=2, bidirectional=True, proj_size=2)
print([(n, tuple(p.shape)) for n, p in m.named_parameters()])
print(list(m.state_dict().keys())[:6])
m.eval()
print(nn.LSTM(3, 4, 2, dropout=0.5), nn.GRU(3, 4, bias=False), nn.RNN(3, 4, nonlinearity="relu"))

for cell in [nn.LSTMCell(4, 3), nn.GRUCell(4, 3), nn.RNNCell(4, 3), nn.RNNCell(4, 3, nonlinearity="relu", bias=False)]:
    fill(cell)
    xi = x[0].clone().requires_grad_(True)
    h = cell(xi)
    hh = h[0] + h[1] if isinstance(h, tuple) else h
    hh.sum().backward()
    print(cell, hh.detach().flatten()[:6], xi.grad.flatten()[:4])
    print(" unbatched", (cell(x[0, 0])[0] if isinstance(h, tuple) else cell(x[0, 0])).detach())

# packed sequences
seqs = [((torch.arange(n * 4, dtype=torch.float32) % 7 - 3) * 0.25).reshape(n, 4) for n in (5, 2, 4)]
padded = pad_sequence(seqs)
print(padded.shape, pad_sequence(seqs, batch_first=True, padding_value=-1.0)[1])
packed = pack_padded_sequence(padded, torch.tensor([5, 2, 4]), enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices, packed.data.shape)
unp, lens = pad_packed_sequence(packed, batch_first=True)
print(unp.shape, lens, bool((unp.transpose(0, 1) == padded).all()))
lstm = nn.LSTM(4, 3, bidirectional=True)
fill(lstm)
out, (h, c) = lstm(packed)
print(type(out).__name__, out.data.shape, out.batch_sizes)
o, l = pad_packed_sequence(out)
print(o[:, 1], l)
print(h[:, 1], c[1])
try:
    pack_padded_sequence(padded, [2, 5, 4])
except RuntimeError as e:
    print("RuntimeError:", e)
ps = pack_sequence([seqs[0], seqs[2], seqs[1]])
gru = nn.GRU(4, 2)
fill(gru)
o, h = gru(ps)
print(o.data[:4], h)
