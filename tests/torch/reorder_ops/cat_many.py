# torch.cat / torch.stack of thousands of tensors, as a corpus is built from one tensor per line
# (pytorch/examples' word_language_model, data.py: torch.cat(idss) over every line of
# wikitext-2), with gradients flowing back to each piece; and torch.onnx importing as in
# PyTorch (its main.py imports it unconditionally and exports only on request).
import torch
import torch.onnx

lines = [torch.arange(i % 7 + 1, dtype=torch.int64) + i for i in range(3000)]
ids = torch.cat(lines)
print(ids.shape, ids[:10].tolist(), ids[-5:].tolist(), ids.sum().item())
pieces = [torch.full((2,), float(i), requires_grad=True) for i in range(2500)]
s = torch.stack(pieces)
c = torch.cat(pieces)
(s * 2).sum().backward()
(c ** 2).sum().backward()
print(s.shape, c.shape, pieces[0].grad.tolist(), pieces[-1].grad.tolist())
print(torch.cat(tuple(p.detach() for p in pieces[:3])).tolist())
try:
    torch.cat([])
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.cat(lines[:3] + [5])
except TypeError as e:
    print("TypeError", e)
print(torch.onnx.is_in_onnx_export())
