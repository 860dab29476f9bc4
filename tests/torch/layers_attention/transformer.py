import torch
import torch.nn as nn
import torch.nn.functional as F


def fill(m, scale=0.0625):
    with torch.no_grad():
        for i, (n, p) in enumerate(m.named_parameters()):
            v = (torch.arange(p.numel(), dtype=torch.float32) * (3 + i % 5) % 13 - 6) * scale
            if n.endswith("norm1.weight") or n.endswith("norm2.weight") or n.endswith("norm3.weight") or n == "norm.weight":
                v = v * 0.25 + 1
            p.copy_(v.reshape(p.shape))


def r(t):
    # 4 decimals, so float-summation-order noise (PyTorch's MKL-free sgemm vs OpenBLAS) cannot show
    return (t.detach() * 10000).round() / 10000


def seq(*shape):
    n = 1
    for s in shape:
        n *= s
    return ((torch.arange(n, dtype=torch.float32) % 11 - 5) * 0.125).reshape(shape)


mha = nn.MultiheadAttention(8, 2)
fill(mha)
print(mha)
print([(n, tuple(p.shape)) for n, p in mha.named_parameters()])
q = seq(4, 2, 8).requires_grad_(True)
out, w = mha(q, q, q)
(out.sum() + w.sum()).backward()
print(r(out[0]), r(w[0]), r(q.grad[0]))
mask = torch.tensor([[False, True, True, False], [False, False, True, True], [False, False, False, True], [False, False, False, False]])
kpm = torch.tensor([[False, False, False, True], [False, False, False, False]])
out, w = mha(q, q, q, attn_mask=mask, key_padding_mask=kpm, average_attn_weights=False)
print(r(out[1]), w.shape, r(w[0, 1]))
out, w = mha(q, q, q, attn_mask=nn.Transformer.generate_square_subsequent_mask(4), need_weights=False)
print(r(out[2]), w)
mha2 = nn.MultiheadAttention(8, 4, kdim=6, vdim=5, batch_first=True, bias=False)
fill(mha2)
print([(n, tuple(p.shape)) for n, p in mha2.named_parameters()])
out, w = mha2(seq(2, 3, 8), seq(2, 5, 6), seq(2, 5, 5))
print(r(out[1]), r(w[1]))
out, w = mha(seq(4, 8), seq(3, 8), seq(3, 8))
print("unbatched", out.shape, w.shape, r(out[0]))
print(nn.Transformer.generate_square_subsequent_mask(3))

enc_layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
fill(enc_layer)
print(enc_layer)
src = seq(5, 2, 8).requires_grad_(True)
y = enc_layer(src)
y.sum().backward()
print(r(y[0]), r(src.grad[0]))
enc_nf = nn.TransformerEncoderLayer(8, 2, 16, 0.0, activation="gelu", batch_first=True, norm_first=True)
fill(enc_nf)
print(r(enc_nf(seq(2, 5, 8), src_key_padding_mask=torch.tensor([[False] * 4 + [True], [False] * 5]))[1]))
enc_act = nn.TransformerEncoderLayer(8, 2, 16, 0.0, activation=nn.GELU())
fill(enc_act)
print(enc_act.activation, r(enc_act(seq(3, 1, 8))[2]))
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0), num_layers=2, norm=nn.LayerNorm(8))
fill(encoder)
print([n for n, _ in encoder.named_parameters()][:4], len(list(encoder.parameters())))
print(r(encoder(seq(5, 2, 8), mask=nn.Transformer.generate_square_subsequent_mask(5))[4]))

dec_layer = nn.TransformerDecoderLayer(8, 2, 16, 0.0)
fill(dec_layer)
print(dec_layer)
mem = seq(5, 2, 8)
tgt = seq(3, 2, 8).requires_grad_(True)
y = dec_layer(tgt, mem, tgt_mask=nn.Transformer.generate_square_subsequent_mask(3))
y.sum().backward()
print(r(y[2]), r(tgt.grad[1]))
dec_nf = nn.TransformerDecoderLayer(8, 2, 16, 0.0, norm_first=True, batch_first=True)
fill(dec_nf)
print(r(dec_nf(seq(2, 3, 8), seq(2, 5, 8), memory_key_padding_mask=torch.tensor([[False] * 5, [False] * 3 + [True] * 2]))[1]))

# one layer each: Ember's ModuleList prints repeated layers as PyTorch 2.x does ("(0-1): 2 x ..."),
# PyTorch 1.13 (the oracle) lists them one by one
model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, dropout=0.0)
fill(model)
print(model)
print(len(list(model.parameters())), list(model.state_dict().keys())[:5])
src = seq(6, 2, 8)
tgt = seq(4, 2, 8)
out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(4))
out.sum().backward()
print(r(out[3]), r(model.encoder.layers[0].self_attn.in_proj_weight.grad[0]))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for i in range(3):
    opt.zero_grad()
    loss = (model(src, tgt) ** 2).mean()
    loss.backward()
    opt.step()
    print("step", i, "%.5f" % loss.item())
try:
    model(seq(6, 3, 8), tgt)
except RuntimeError as e:
    print("RuntimeError:", e)
