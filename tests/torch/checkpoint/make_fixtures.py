"""Writes the checkpoint fixtures under fixtures/ with real PyTorch (1.13):

    /usr/bin/python3 /work/shared/oracle/run_oracle.py tests/torch/checkpoint/make_fixtures.py

Each file is a few KB; load_fixtures.py loads them in the default suite.  Re-run only to change
the fixtures (and re-record load_fixtures.expected with the oracle)."""
import collections
import io
import os

import torch

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
os.makedirs(HERE, exist_ok=True)


def path(name):
    return os.path.join(HERE, name)


# every dtype Ember has (include/ember/dtypes.def), with values that show rounding and sign
dtypes = collections.OrderedDict()
dtypes["float32"] = torch.tensor([1.5, -2.25, 3.0e-8, 65504.0], dtype=torch.float32)
dtypes["float64"] = torch.tensor([1.0 / 3.0, -1e300, 2.5e-310], dtype=torch.float64)
dtypes["float16"] = torch.tensor([0.1, -65504.0, 6.1e-5], dtype=torch.float16)
dtypes["bfloat16"] = torch.tensor([0.1, -3.0e38, 1.0e-3], dtype=torch.bfloat16)
dtypes["int64"] = torch.tensor([-(2 ** 62), 7, 2 ** 40], dtype=torch.int64)
dtypes["int32"] = torch.tensor([-(2 ** 31), 12345, 2 ** 31 - 1], dtype=torch.int32)
dtypes["int16"] = torch.tensor([-32768, 300, 32767], dtype=torch.int16)
dtypes["int8"] = torch.tensor([-128, -1, 127], dtype=torch.int8)
dtypes["uint8"] = torch.tensor([0, 128, 255], dtype=torch.uint8)
dtypes["bool"] = torch.tensor([True, False, True])
dtypes["matrix"] = torch.arange(6, dtype=torch.float64).reshape(2, 3)
dtypes["scalar"] = torch.tensor(2.5)
dtypes["empty"] = torch.zeros(0, 3)
torch.save(dtypes, path("dtypes.pt"))

# a small model's state dict (Linear, BatchNorm with its version-2 metadata, LayerNorm)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                            torch.nn.Linear(4, 2), torch.nn.LayerNorm(2))
model.train()
model(torch.randn(5, 3))   # BatchNorm running stats move
torch.save(model.state_dict(), path("model.pt"))

# an Adam optimizer's state dict after two steps
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for _ in range(2):
    opt.zero_grad()
    model(torch.randn(5, 3)).pow(2).sum().backward()
    opt.step()
torch.save(opt.state_dict(), path("adam.pt"))

# views sharing one storage, non-contiguous tensors, one tensor twice
base = torch.arange(12, dtype=torch.float32)
shared = {
    "base": base,
    "slice": base[2:5],
    "strided": base[::3],
    "matrix_t": base.view(3, 4).t(),
    "row": base.view(3, 4)[1],
    "again": [base, base[2:5]],
    "other": torch.ones(2, 2).t(),
}
torch.save(shared, path("shared.pt"))

# nested containers, autograd flags, parameters
nested = {
    "ints": [1, -2, 2 ** 40, 2 ** 70],
    "floats": (0.5, -1e-300, float("inf")),
    "strings": ["a", "ünïcode", ""],
    "misc": [None, True, False, (), [], {}],
    "tensors": [torch.tensor([1.0, 2.0], requires_grad=True),
                torch.nn.Parameter(torch.tensor([[3.0, 4.0]])),
                torch.nn.Parameter(torch.tensor([5, 6]), requires_grad=False)],
    "deep": {"a": {"b": [torch.tensor(7), {"c": (torch.tensor([8.0]),)}]}},
    1: "int key",
    (2, 3): "tuple key",
}
torch.save(nested, path("nested.pt"))

# a checkpoint written on a CUDA machine: storages tagged 'cuda:0' (this machine has no CUDA, so
# a tagger registered ahead of PyTorch's cpu one writes the location a GPU run writes)
torch.serialization.register_package(0, lambda obj: "cuda:0", lambda obj, location: None)
torch.save({"w": torch.tensor([1.0, 2.0]), "step": 3}, path("cuda.pt"))
torch.serialization._package_registry.pop(0)

# the legacy (non-zip) format
torch.save({"x": torch.arange(4, dtype=torch.int16), "y": base[1:3]}, path("legacy.pt"),
           _use_new_zipfile_serialization=False)


# an arbitrary global in the pickle: weights_only=True refuses it
class Custom:
    def __init__(self):
        self.value = 1


torch.save({"obj": Custom(), "t": torch.ones(1)}, path("custom.pt"))

for name in sorted(os.listdir(HERE)):
    print(name, os.path.getsize(path(name)))
