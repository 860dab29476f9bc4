# The storage surface checkpoints stand on (Tensor.storage(), TypedStorage, the legacy
# FloatStorage classes, UntypedStorage bytes, set_) and torch.save / torch.load's errors.
import copy
import io
import os
import pickle
import tempfile

import torch


def attempt(f):
    try:
        print("ok", f())
    except Exception as e:
        print(type(e).__name__, e)


x = torch.arange(4.)
s = x.storage()
print(type(s), s.dtype, s.device, s.size(), len(s), s.nbytes(), s.element_size(), s.type(), s.pickle_storage_type())
print(isinstance(s, torch.FloatStorage), isinstance(s, torch.LongStorage), torch.is_storage(s), torch.is_storage(x))
print(x.storage_type(), torch.arange(3).storage_type(), x.is_shared(), x[1:].storage().size())
print(torch.ones(2, dtype=torch.float16).storage())
print(torch.tensor([True]).storage())
attempt(lambda: s[4])
attempt(lambda: s["a"])
attempt(lambda: s[1:2])
s[1] = 7.5
print(x, list(iter(s)), s[-1])
print(copy.deepcopy(s).tolist(), s.clone().data_ptr() != s.data_ptr())
print(torch.LongStorage([1, 2]).tolist(), type(torch.LongStorage([1, 2])), torch.FloatStorage(3).size())
print(s.double().tolist(), s.int().dtype, s.int().tolist())
u = s.untyped()
print(type(u), u.nbytes(), u.element_size(), u[5], u.tolist()[:8])
print(u)
attempt(lambda: u[100])
print(u[4:8].tolist(), u[4:8].nbytes())

# set_ points a tensor at a storage: what torch.load does for every tensor
t = torch.tensor([], dtype=torch.float32)
print(t.set_(u, 1, (2,), (2,)), t.storage_offset(), t.storage().data_ptr() == x.storage().data_ptr())
print(torch.tensor([], dtype=torch.float32).set_(s), torch.tensor([], dtype=torch.float32).set_(x[1:]))
attempt(lambda: torch.tensor([], dtype=torch.int64).set_(s))
attempt(lambda: torch.tensor([], dtype=torch.int64).set_(u, 0, (2,), (-1,)))
as_int = torch.tensor([], dtype=torch.int32).set_(u)
print(as_int.dtype, as_int.shape)
attempt(lambda: torch.save([x, as_int], io.BytesIO()))

# errors of torch.save / torch.load
with tempfile.TemporaryDirectory() as d:
    try:
        torch.save(x, os.path.join(d, "missing", "x.pt"))
    except RuntimeError as e:
        print(type(e).__name__, str(e).replace(d, "<tmp>"))
    attempt(lambda: torch.load(io.BytesIO(b"PK\x03\x04garbage")))
    attempt(lambda: torch.load(io.BytesIO(b"PK\x03\x04" + b"\0" * 40)))
attempt(lambda: torch.load(io.BytesIO(), weights_only=True, pickle_module=pickle))
b = io.BytesIO()
torch.save({"a": torch.ones(2)}, b, _use_new_zipfile_serialization=False)
b.seek(0)
print(torch.load(b, map_location={"cpu": "cpu"}))
m = torch.nn.BatchNorm1d(2)
m.register_buffer("np", torch.ones(1), persistent=False)
print(list(m.state_dict().keys()), m.state_dict()._metadata)
sd = torch.nn.Linear(2, 2).state_dict()
print(type(copy.deepcopy(sd)), copy.deepcopy(sd)._metadata, pickle.loads(pickle.dumps(sd))._metadata)

# PyTorch's reader does not check a record's CRC (miniz built without it): a flipped bit loads
b = io.BytesIO()
torch.save(torch.arange(4.), b)
data = bytearray(b.getvalue())
data[data.find(bytes([0, 0, 128, 63])) + 3] ^= 1   # 1.0f -> 0.25f... in record data/0
print(torch.load(io.BytesIO(bytes(data))))
