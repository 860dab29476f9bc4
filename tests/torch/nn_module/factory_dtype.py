# Modules built with dtype= make their parameters in that dtype and initialise them there (the
# float64 init draws doubles, so the values are not a float32 init cast); Ember ignored dtype=
# for Linear, Bilinear, convolutions, LayerNorm, GroupNorm, Embedding(Bag), PReLU,
# MultiheadAttention and the Transformer layers before
import torch
import torch.nn as nn

f64 = torch.float64
mods = [nn.Linear(3, 4, dtype=f64), nn.Bilinear(2, 3, 4, dtype=f64), nn.Conv1d(2, 3, 3, dtype=f64),
        nn.Conv2d(2, 3, 3, dtype=f64), nn.ConvTranspose1d(2, 3, 3, dtype=f64), nn.ConvTranspose2d(2, 3, 3, dtype=f64),
        nn.LayerNorm(3, dtype=f64), nn.GroupNorm(1, 3, dtype=f64), nn.Embedding(5, 3, dtype=f64),
        nn.EmbeddingBag(5, 3, dtype=f64), nn.PReLU(dtype=f64), nn.MultiheadAttention(4, 2, dtype=f64),
        nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, dtype=f64),
        nn.TransformerEncoderLayer(4, 2, 8, dtype=f64), nn.TransformerDecoderLayer(4, 2, 8, dtype=f64),
        nn.Transformer(4, 2, 1, 1, 8, dtype=f64), nn.Linear(3, 4, dtype=torch.bfloat16),
        nn.Conv2d(1, 2, 2, dtype=torch.float16), nn.Linear(2, 2, device="cpu", dtype=f64)]
for m in mods:
    print(type(m).__name__, sorted({str(p.dtype) for p in m.parameters()}))

torch.manual_seed(0)
lin = nn.Linear(3, 2, dtype=f64)
print(lin.weight, lin.bias)
conv = nn.Conv2d(1, 1, 2, dtype=f64)
print(conv.weight)
emb = nn.Embedding(4, 2, dtype=f64)
print(emb.weight)
print(nn.Linear(2, 3, dtype=torch.bfloat16).weight)
x = torch.randn(2, 3, dtype=f64)
y = lin(x)
print(y)
y.sum().backward()
print(lin.weight.grad)
mha = nn.MultiheadAttention(4, 2, batch_first=True, dtype=f64)
q = torch.randn(1, 3, 4, dtype=f64)
out, w = mha(q, q, q)
print(out, w)
layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True, dtype=f64)
print(layer(q))
