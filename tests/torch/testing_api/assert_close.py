# torch.testing.assert_close / make_tensor / assert_allclose as a test script uses them: the
# passes, and every failure's exception type and message (PyTorch 1.13's text).
import warnings
from collections import OrderedDict

import torch
from torch.testing import assert_close, make_tensor


def check(label, *args, **kwargs):
    try:
        assert_close(*args, **kwargs)
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__)
        print(str(e))
    print("--")


x = torch.tensor([1.0, 2.0, 3.0])
check("same", x, x.clone())
check("within", x, x + 1e-6)
check("one off", x, torch.tensor([1.0, 2.5, 3.0]))
check("all off", torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.5, 2.0], [3.0, 5.0]]))
check("exact tol", x, x + 1e-6, rtol=0, atol=0)
check("only rtol", x, x, rtol=1e-3)
check("only atol", x, x, atol=1e-3)
check("loose", x, x + 0.01, rtol=0, atol=0.1)
check("dtype", x, x.double())
check("dtype off", x, x.double(), check_dtype=False)
check("shape", x, torch.ones(2))
check("stride", torch.ones(2, 3).t(), torch.ones(3, 2), check_stride=True)
check("stride off", torch.ones(2, 3).t(), torch.ones(3, 2))
check("0-dim", torch.tensor(1.0), torch.tensor(1.5))
check("int tensors", torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]))
check("bool tensors", torch.tensor([True, False]), torch.tensor([True, True]))
check("nan", torch.tensor([float("nan"), 1.0]), torch.tensor([float("nan"), 1.0]))
check("nan equal", torch.tensor([float("nan"), 1.0]), torch.tensor([float("nan"), 1.0]), equal_nan=True)
check("inf", torch.tensor([float("inf")]), torch.tensor([float("inf")]))
check("zero expected", torch.tensor([0.5, 0.0]), torch.tensor([0.0, 0.0]))
check("float64", torch.tensor([1.0], dtype=torch.float64), torch.tensor([1.0 + 1e-8], dtype=torch.float64))
check("float16", torch.tensor([1.0], dtype=torch.float16), torch.tensor([1.001], dtype=torch.float16))
check("numbers", 1.0, 1.0 + 1e-9)
check("numbers off", 1.0, 1.1)
check("int vs float", 1, 1.0)
check("ints", 3, 4)
check("bools", True, False)
check("none", None, None)
check("none off", None, 1)
check("list", [x, 1.0], [x, 1.0])
check("list len", [x], [x, x])
check("nested", {"a": [x, {"b": x}]}, {"a": [x, {"b": x + 1}]})
check("keys", {"a": 1, "b": 2}, {"a": 1, "c": 2})
check("ordered", OrderedDict(w=x, b=x), {"w": x, "b": x})
check("tensor vs float", torch.tensor(1.0), 1.0)
check("strings", "a", "a")
check("msg str", x, x + 1, msg="custom message")
check("msg callable", x, x + 1, msg=lambda m: "wrapped: " + m.splitlines()[0])
check("tuple item", (x, x), (x, x * 2))
check("big", torch.arange(100.0).reshape(10, 10), torch.arange(100.0).reshape(10, 10) * 1.01)

torch.manual_seed(0)
print(make_tensor(2, 3, dtype=torch.float32, device="cpu"))
print(make_tensor((4,), dtype=torch.int64, device="cpu"))
print(make_tensor(3, dtype=torch.uint8, device="cpu", low=2, high=5))
print(make_tensor(2, 2, dtype=torch.float64, device="cpu", low=0, high=1))
print(make_tensor(5, dtype=torch.bool, device="cpu"))
t = make_tensor(2, 4, dtype=torch.float32, device="cpu", noncontiguous=True)
print(t, t.is_contiguous(), t.stride())
print(make_tensor(3, dtype=torch.float32, device="cpu", requires_grad=True))
for bad in (dict(low=2, high=1), dict(low=float("nan"))):
    try:
        make_tensor(2, dtype=torch.float32, device="cpu", **bad)
    except ValueError as e:
        print("ValueError", e)
try:
    make_tensor(2, dtype=torch.int32, device="cpu", requires_grad=True)
except ValueError as e:
    print("ValueError", e)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.testing.assert_allclose(x, x + 1e-5)
    torch.testing.assert_allclose([1.0, 2.0], [1.0, 2.0])
    try:
        torch.testing.assert_allclose(x, x + 1)
    except AssertionError as e:
        print("allclose", str(e).splitlines()[0])
for w in caught:
    print(w.category.__name__, w.message)
