# torch.save(model) pickles each module class by its __module__ and name, and torch.load looks
# it up there: MultiheadAttention must live in torch.nn.modules.activation and its out_proj class
# NonDynamicallyQuantizableLinear in torch.nn.modules.linear, as in PyTorch, or a Transformer
# saved by one runtime cannot be loaded by the other (word_language_model's generate.py).
# Regression: Ember defined both in torch.nn.modules.transformer.
import io
import pickletools
import zipfile

import torch
import torch.nn as nn


def pickled_globals(obj):
    f = io.BytesIO()
    torch.save(obj, f)
    z = zipfile.ZipFile(io.BytesIO(f.getvalue()))
    name = [n for n in z.namelist() if n.endswith("data.pkl")][0]
    found = []
    for op, arg, _ in pickletools.genops(z.read(name)):
        if op.name in ("GLOBAL", "STACK_GLOBAL") and arg is not None and arg not in found:
            found.append(arg)
    return sorted(found)


torch.manual_seed(0)
print(nn.MultiheadAttention.__module__, nn.modules.activation.MultiheadAttention is nn.MultiheadAttention)
print(nn.modules.linear.NonDynamicallyQuantizableLinear.__module__)
print(nn.modules.transformer.MultiheadAttention is nn.MultiheadAttention)

mha = nn.MultiheadAttention(4, 2)
print(type(mha.out_proj).__module__, type(mha.out_proj).__name__, isinstance(mha.out_proj, nn.Linear))
for g in pickled_globals(mha):
    print(" ", g)

enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, dim_feedforward=8), 1)
for g in pickled_globals(enc):
    print(" ", g)

f = io.BytesIO()
torch.save(enc, f)
f.seek(0)
back = torch.load(f)
enc.eval()
back.eval()
x = torch.linspace(-1, 1, 24).view(3, 2, 4)
print(type(back.layers[0].self_attn).__module__, torch.equal(back(x), enc(x)))
