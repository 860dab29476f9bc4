# nn modules and functions whose result's grad_fn Ember names as PyTorch 1.13's node: RNN/GRU
# with batch_first (their kernels transpose the output in place: TransposeBackward1; LSTM's does
# not), RReLU in evaluation (rrelu_with_noise), kl_div(reduction='none'), embedding_bag, and
# fx tracing through the named decompositions (the Proxy is left alone).  Module-level calls.
import torch
import torch.nn as nn
import torch.nn.functional as F


def n(y):
    return type(y.grad_fn).__name__


torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
seq = torch.randn(5, 2, 4, requires_grad=True)
rnns = [nn.RNN(4, 3, batch_first=True), nn.RNN(4, 3, batch_first=True, nonlinearity="relu"),
        nn.GRU(4, 3, batch_first=True), nn.GRU(4, 3, 2, batch_first=True, bidirectional=True),
        nn.LSTM(4, 3, batch_first=True), nn.LSTM(4, 3, 2, batch_first=True, bidirectional=True),
        nn.LSTM(4, 3, batch_first=True, proj_size=2), nn.RNN(4, 3), nn.GRU(4, 3)]
outs = [m(seq) for m in rnns]
print([(n(o), n(h if not isinstance(h, tuple) else h[0])) for o, h in outs])
outs = [m(seq[:, 0]) for m in rnns]
print([n(o) for o, h in outs])
o, h = rnns[2](seq)
print(o[0])
o.sum().backward()
print(seq.grad[0])

y = nn.RReLU(0.1, 0.3).eval()(x)
print(y)
print(n(F.rrelu(x)), n(F.rrelu(x.double())), n(F.rrelu(x, training=False)))

lp = x.log_softmax(1)
tg = x.detach().softmax(1)
print(F.kl_div(lp, torch.rand(3, 4), reduction="none")[0])
print(n(F.kl_div(lp, tg, reduction="none")), n(F.kl_div(lp, tg.log(), reduction="none", log_target=True)),
      n(torch.kl_div(lp, tg)), n(F.kl_div(lp, tg, reduction="sum")), n(F.kl_div(lp, tg, reduction="batchmean")),
      n(nn.KLDivLoss(reduction="none")(lp, tg)))

w = torch.randn(10, 3, requires_grad=True)
idx = torch.tensor([1, 2, 3, 4])
off = torch.tensor([0, 2])
print(F.embedding_bag(idx, w, off))
print([(n(F.embedding_bag(idx, w, off, mode=m)), n(F.embedding_bag(idx.view(2, 2), w, mode=m)),
        n(nn.EmbeddingBag(10, 3, mode=m)(idx, off)), n(F.embedding_bag(idx, w, off, mode=m, padding_idx=2)))
       for m in ("sum", "mean", "max")])
print(n(F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=torch.rand(4))),
      n(F.embedding_bag(idx, w, torch.tensor([0, 2, 4]), include_last_offset=True)))


class Acts(nn.Module):
    def forward(self, x):
        return F.selu(x) + F.elu(x) + F.hardtanh(x) + F.softplus(x) + F.softshrink(x) + F.pad(x, (0, 0))


gm = torch.fx.symbolic_trace(Acts())
print(gm(torch.ones(2, 3)))
