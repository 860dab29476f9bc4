# Whole-model checkpoints name each class by its module: Flatten / Unflatten, Fold / Unfold,
# Upsample*, InstanceNorm* live where PyTorch defines them (torch.nn.modules.flatten, .fold,
# .upsampling, .instancenorm), so a model saved by one runtime loads in the other.
import io
import pickletools
import zipfile

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.ModuleDict({
    "run": nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.InstanceNorm2d(2, affine=True),
                         nn.Upsample(scale_factor=2), nn.UpsamplingNearest2d(scale_factor=1),
                         nn.Unfold(2, stride=2), nn.Fold((8, 8), 2, stride=2), nn.Flatten(),
                         nn.Unflatten(1, (2, 64)), nn.InstanceNorm1d(2)),
    "other": nn.Sequential(nn.UpsamplingBilinear2d(scale_factor=2), nn.InstanceNorm3d(3))})
for m in list(model["run"]) + list(model["other"]):
    print(type(m).__name__, type(m).__module__)
buf = io.BytesIO()
torch.save(model, buf)
with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
    pkl = z.read([n for n in z.namelist() if n.endswith("data.pkl")][0])
refs = set()
strings = []
for op, arg, pos in pickletools.genops(pkl):
    if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE"):
        strings.append(arg)
    elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
        refs.add(strings[-2] + "." + strings[-1])
    elif op.name == "GLOBAL":
        refs.add(arg.replace(" ", "."))
print(sorted(r for r in refs if r.startswith("torch.nn.modules")))
buf.seek(0)
loaded = torch.load(buf)
x = torch.randn(1, 1, 4, 4)
print(torch.equal(loaded["run"](x), model["run"](x)), loaded["run"](x).shape)
