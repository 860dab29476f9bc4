# torch.save then torch.load in one process: every dtype, a model's state dict and an Adam
# state dict, views sharing a storage, parameters and requires_grad, paths / pathlib / file
# objects / BytesIO, the zip container's layout (record names, 64-byte alignment), the legacy
# format, plain pickle of tensors, map_location, weights_only, and the errors of bad files.
import io
import os
import pathlib
import pickle
import tempfile
import zipfile

import torch


def roundtrip(obj, **load_kwargs):
    b = io.BytesIO()
    torch.save(obj, b)
    b.seek(0)
    return torch.load(b, **load_kwargs)


def layout(data):
    # record names and whether each record's data starts on a 64-byte boundary, as PyTorch writes
    z = zipfile.ZipFile(io.BytesIO(data))
    out = []
    for info in z.infolist():
        n_name = int.from_bytes(data[info.header_offset + 26:info.header_offset + 28], "little")
        n_extra = int.from_bytes(data[info.header_offset + 28:info.header_offset + 30], "little")
        start = info.header_offset + 30 + n_name + n_extra
        out.append((info.filename, info.file_size, info.compress_type, start % 64 == 0))
    return out


def dtypes():
    values = {
        torch.float32: [1.5, -2.25, 3.0e-8], torch.float64: [1.0 / 3.0, -1e300],
        torch.float16: [0.1, -65504.0], torch.bfloat16: [0.1, -3.0e38], torch.int64: [-(2 ** 62), 7],
        torch.int32: [-(2 ** 31), 2 ** 31 - 1], torch.int16: [-32768, 32767], torch.int8: [-128, 127],
        torch.uint8: [0, 255], torch.bool: [True, False],
    }
    ts = {str(dt): torch.tensor(v, dtype=dt) for dt, v in values.items()}
    back = roundtrip(ts)
    for k, t in back.items():
        print(k, t.dtype, t.tolist(), torch.equal(t, ts[k]))


def model_and_optimizer():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(2):
        opt.zero_grad()
        model(torch.randn(6, 3)).pow(2).mean().backward()
        opt.step()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.pt")
        torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 2}, path)
        with open(path, "rb") as f:
            print([name for name, *_ in layout(f.read())])
        ck = torch.load(path)
    print(ck["epoch"], ck["model"]._metadata)
    torch.manual_seed(1)
    fresh = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    print(fresh.load_state_dict(ck["model"]))
    fresh.eval()
    model.eval()
    x = torch.linspace(-1, 1, 6).reshape(2, 3)
    print(torch.equal(fresh(x), model(x)), fresh(x).shape)
    fopt = torch.optim.Adam(fresh.parameters(), lr=0.5)
    fopt.load_state_dict(ck["optim"])
    print(fopt.param_groups[0]["lr"], sorted(ck["optim"]["state"][0].keys()), ck["optim"]["state"][0]["step"])
    print(ck["optim"]["state"][3]["exp_avg"])


def sharing():
    base = torch.arange(12.0)
    obj = {"base": base, "view": base.view(3, 4).t(), "slice": base[5:9], "step": base[1::4], "same": [base, base]}
    b = io.BytesIO()
    torch.save(obj, b)
    print([(n, size) for n, size, *_ in layout(b.getvalue())])
    print(all(aligned for *_, aligned in layout(b.getvalue())), {c for _, _, c, _ in layout(b.getvalue())})
    b.seek(0)
    d = torch.load(b)
    for k in ["view", "slice", "step"]:
        t = d[k]
        print(k, t.tolist(), t.stride(), t.storage_offset(), t.is_contiguous(),
              t.storage().data_ptr() == d["base"].storage().data_ptr())
    print(d["same"][0] is d["same"][1], d["same"][0] is d["base"])
    d["base"].mul_(10)
    print(d["view"][1], d["slice"])


def autograd_flags():
    w = torch.nn.Parameter(torch.tensor([[1.0, 2.0]]))
    frozen = torch.nn.Parameter(torch.tensor([3.0]), requires_grad=False)
    x = torch.tensor([4.0], requires_grad=True)
    y = x * 2
    back = roundtrip([w, frozen, x, y, y.detach()])
    for t in back:
        print(type(t).__name__, t.requires_grad, t.is_leaf, t.grad_fn, t.tolist())
    back[0].sum().backward()
    print(back[0].grad)


def targets():
    t = {"a": torch.tensor([1, 2, 3])}
    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / "ck.tar"
        torch.save(t, p)
        print(torch.load(p)["a"], torch.load(str(p))["a"], [n for n, *_ in layout(p.read_bytes())])
        with open(os.path.join(d, "f.bin"), "wb") as f:
            torch.save(t, f)
        with open(os.path.join(d, "f.bin"), "rb") as f:
            raw = f.read()
            f.seek(0)
            print(torch.load(f)["a"], [n for n, *_ in layout(raw)])


def storages():
    x = torch.tensor([1.0, 2.0, 3.0])
    s = roundtrip(x.storage())
    print(type(s).__name__, s.dtype, s.tolist())
    u = roundtrip(torch.tensor([7, 8], dtype=torch.uint8).storage().untyped())
    print(type(u).__name__, u.tolist())
    # pickle of a tensor goes through the storage's legacy-format __reduce__
    t = pickle.loads(pickle.dumps(torch.arange(4.0).view(2, 2).t(), protocol=2))
    print(t, t.stride())


def legacy_format():
    base = torch.arange(6, dtype=torch.int32)
    b = io.BytesIO()
    torch.save({"v": base[2:], "p": torch.nn.Parameter(torch.ones(2))}, b, _use_new_zipfile_serialization=False)
    print(b.getvalue()[:2], zipfile.is_zipfile(io.BytesIO(b.getvalue())))
    b.seek(0)
    d = torch.load(b)
    print(d["v"], d["v"].storage_offset(), d["p"])


def map_locations():
    t = {"w": torch.tensor([1.5])}
    calls = []
    print(roundtrip(t, map_location="cpu")["w"], roundtrip(t, map_location=torch.device("cpu"))["w"],
          roundtrip(t, map_location={"cpu": "cpu"})["w"])
    print(roundtrip(t, map_location=lambda s, loc: calls.append(loc) or s)["w"], calls)


class Custom:
    def __init__(self, v):
        self.v = v


def weights_only():
    print(roundtrip({"t": torch.ones(2), "n": 3, "s": "x", "l": [1, (2, None)]}, weights_only=True))
    print(roundtrip(Custom(5)).v)
    for obj in [Custom(5), {"f": 0.5}, print]:
        try:
            roundtrip(obj, weights_only=True)
        except pickle.UnpicklingError as e:
            print(type(e).__name__, str(e).split("WeightsUnpickler error: ")[1])


def bad_files():
    with tempfile.TemporaryDirectory() as d:
        for name, data in [("garbage.pt", b"hello world, not a checkpoint"), ("empty.pt", b""),
                           ("truncated.pt", None)]:
            p = os.path.join(d, name)
            if data is None:
                b = io.BytesIO()
                torch.save(torch.ones(3), b)
                data = b.getvalue()[:40]
            with open(p, "wb") as f:
                f.write(data)
            try:
                torch.load(p)
            except Exception as e:
                print(name, type(e).__name__, e)
        try:
            torch.load(os.path.join(d, "missing.pt"))
        except FileNotFoundError as e:
            print(type(e).__name__, e.errno, os.path.basename(e.filename))


dtypes()
model_and_optimizer()
sharing()
autograd_flags()
targets()
storages()
legacy_format()
map_locations()
weights_only()
bad_files()
