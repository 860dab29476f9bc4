# Loads the checkpoints PyTorch 1.13 wrote (fixtures/, made by make_fixtures.py) and prints what
# they hold: every dtype bit for bit, a model's state dict with its _metadata, an Adam state
# dict, storage sharing between views, nested containers, map_location, the legacy format and
# weights_only refusals.
import io
import os
import pathlib
import pickle

import torch

FIX = "fixtures"


def describe(name, t):
    print(name, type(t).__name__, t.dtype, tuple(t.shape), t.stride(), t.storage_offset(),
          t.is_contiguous(), t.requires_grad, t.is_leaf)
    print(t)


def show(obj, indent=""):
    if isinstance(obj, torch.Tensor):
        describe(indent + "tensor", obj)
    elif isinstance(obj, dict):
        print(indent + type(obj).__name__, list(obj.keys()))
        for k, v in obj.items():
            print(indent + repr(k) + ":")
            show(v, indent + "  ")
    elif isinstance(obj, (list, tuple)):
        print(indent + type(obj).__name__, len(obj))
        for v in obj:
            show(v, indent + "  ")
    else:
        print(indent + repr(obj))


def load_dtypes():
    d = torch.load(os.path.join(FIX, "dtypes.pt"))
    print(type(d).__name__, list(d.keys()))
    for k, t in d.items():
        describe(k, t)
        print(t.tolist())
    # the bits themselves: the bytes of the float16 / bfloat16 storages
    print(d["float16"].storage().untyped().tolist(), d["bfloat16"].storage().untyped().tolist())


def load_model():
    sd = torch.load(FIX + "/model.pt")
    print(type(sd).__name__, list(sd.keys()))
    print(sd._metadata)
    for k, t in sd.items():
        describe(k, t)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                                torch.nn.Linear(4, 2), torch.nn.LayerNorm(2))
    print(model.load_state_dict(sd))
    model.eval()
    print(model(torch.ones(2, 3)))


def load_adam():
    sd = torch.load(pathlib.Path(FIX) / "adam.pt")
    print(sorted(sd.keys()))
    for group in sd["param_groups"]:
        print(sorted(group.items()))
    for k in sorted(sd["state"]):
        st = sd["state"][k]
        print(k, sorted(st.keys()))
        for name in sorted(st):
            describe("  " + name, st[name])


def load_shared():
    with open(os.path.join(FIX, "shared.pt"), "rb") as f:
        d = torch.load(f)
    for k in ["base", "slice", "strided", "matrix_t", "row", "other"]:
        describe(k, d[k])
    base = d["base"]
    for k in ["slice", "strided", "matrix_t", "row"]:
        print(k, "shares base's storage:", d[k].storage().data_ptr() == base.storage().data_ptr(),
              d[k].storage().size())
    print("again[0] is base:", d["again"][0] is base, "again[1] is slice:", d["again"][1] is d["slice"])
    print("other shares:", d["other"].storage().data_ptr() == base.storage().data_ptr())
    base[3] = 100.0   # writes through every view
    print(d["slice"], d["matrix_t"][3], d["row"])


def load_nested():
    with open(os.path.join(FIX, "nested.pt"), "rb") as f:
        d = torch.load(io.BytesIO(f.read()))
    show(d)
    p = d["tensors"][1]
    print(isinstance(p, torch.nn.Parameter), p.requires_grad, p.grad_fn)


def load_cuda():
    try:
        torch.load(os.path.join(FIX, "cuda.pt"))
    except RuntimeError as e:
        print("RuntimeError:", e)
    for ml in ["cpu", torch.device("cpu"), {"cuda:0": "cpu"}, lambda storage, loc: storage]:
        d = torch.load(os.path.join(FIX, "cuda.pt"), map_location=ml)
        print(type(ml).__name__, d["w"], d["step"], d["w"].device)
    seen = []

    def record(storage, location):
        seen.append((location, type(storage).__name__, storage.nbytes()))
        return None   # fall back to the default, which refuses cuda:0

    try:
        torch.load(os.path.join(FIX, "cuda.pt"), map_location=record)
    except RuntimeError as e:
        print("RuntimeError:", str(e)[:60])
    print(seen)


def load_legacy():
    d = torch.load(os.path.join(FIX, "legacy.pt"))
    for k, t in d.items():
        describe(k, t)
    d = torch.load(os.path.join(FIX, "legacy.pt"), weights_only=True)
    print(sorted(d.keys()), d["x"].sum())


def load_weights_only():
    sd = torch.load(os.path.join(FIX, "model.pt"), weights_only=True)
    print(type(sd).__name__, len(sd), sd._metadata["1"])
    d = torch.load(os.path.join(FIX, "dtypes.pt"), weights_only=True)
    print(d["int8"], d["bool"])
    for name in ["custom.pt", "adam.pt", "nested.pt"]:
        try:
            torch.load(os.path.join(FIX, name), weights_only=True)
            print(name, "loaded")
        except pickle.UnpicklingError as e:
            print(name, type(e).__name__, e)


load_dtypes()
load_model()
load_adam()
load_shared()
load_nested()
load_cuda()
load_legacy()
load_weights_only()
