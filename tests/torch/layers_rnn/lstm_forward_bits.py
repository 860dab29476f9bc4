# nn.LSTM's forward bits as PyTorch 1.13's CPU LSTM computes them: the input projection of the
# whole sequence at once, then each step's gates as linear(h, w_hh, b_hh) + that projection
# (pytorch/examples' word_language_model drifted from PyTorch's losses when Ember folded b_hh
# into the projection).  One- and two-layer, uni- and bidirectional, with and without biases.
# (Other hidden sizes, the sigmoids' libm tails and the backward: lstm_backward_bits.py.)
import hashlib
import torch
import torch.nn as nn

H = lambda t: hashlib.sha1(' '.join(v.hex() for v in t.double().flatten().tolist()).encode()).hexdigest()[:12]
torch.manual_seed(1111)
for layers, bidir, bias in ((1, False, True), (2, False, True), (2, True, True), (1, True, False)):
    rnn = nn.LSTM(16, 32 if bidir else 16, layers, bidirectional=bidir, bias=bias)
    x = torch.randn(20, 4, 16)
    out, (h, c) = rnn(x)
    print(layers, bidir, bias, H(out), H(h), H(c))
enc = nn.Embedding(50, 16)
rnn = nn.LSTM(16, 16, 1)
dec = nn.Linear(16, 50)
ids = torch.randint(0, 50, (20, 4))
out, _ = rnn(enc(ids))
loss = nn.functional.cross_entropy(dec(out).view(-1, 50), torch.randint(0, 50, (80,)))
print(repr(loss.item()), [repr(v) for v in out[-1, 0, :4].tolist()])
