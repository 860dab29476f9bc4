# sort / argsort / flip / nan_to_num lay their results out as the input (ATen allocates them with
# empty_like, preserve_format), and type_as converts to the other tensor's dtype; values and
# strides for contiguous, transposed and sliced inputs, eager and inside a compiled function
import torch

torch.manual_seed(0)
inputs = {
    "contig": torch.randn(4, 6),
    "t": torch.randn(6, 4).t(),
    "perm3": torch.randn(3, 4, 5).permute(2, 0, 1),
    "sliced": torch.randn(6, 8)[:, ::2],
}
for name, x in inputs.items():
    v, i = x.sort(1)
    vd, idd = x.sort(-1, descending=True)
    print(name, x.stride())
    print("  sort", v.stride(), i.stride(), torch.equal(v, x.gather(1, i)), vd.stride(), torch.equal(vd, x.gather(-1, idd)))
    print("  argsort", x.argsort(0).stride(), torch.equal(x.argsort(0), x.sort(0)[1]))
    print("  flip", x.flip(0).stride(), x.flip(-1).stride(), torch.equal(x.flip(0).flip(0), x), x.flip(0)[0].tolist() == x[-1].tolist())
    y = x.clone()
    first, last = (0,) * y.dim(), (-1,) * y.dim()
    y[first] = float("nan")
    y[last] = float("inf")
    n = y.nan_to_num(posinf=7.0)
    print("  nan_to_num", n.stride(), n[first].item(), n[last].item(), torch.equal(n[1:, :-1], y[1:, :-1]))
    print("  type_as", x.type_as(torch.zeros(1, dtype=torch.float64)).dtype, x.type_as(torch.zeros(1, dtype=torch.int64)).stride(),
          x.type_as(x) is x)
    print("  values", [round(f, 4) for f in v.flatten()[:6].tolist()], i.flatten()[:6].tolist())


def f(x):
    v, i = x.sort(1)
    return v * 2, i, x.flip(1) + 1, x.nan_to_num() - 1, x.type_as(i) + 1


for name, x in inputs.items():
    outs = f(x)
    print(name, [o.stride() for o in outs], [round(o.double().sum().item(), 4) for o in outs])
