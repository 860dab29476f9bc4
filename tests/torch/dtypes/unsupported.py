# Ember-only output (recorded with `record_golden.sh --ember`): Ember's tensors are float32, int64
# or bool.  The other dtypes exist as torch.dtype objects, but a tensor of one is refused with
# NotImplementedError instead of silently computing in another dtype (PyTorch would run these).
import torch

print(torch.float64, torch.float64.is_floating_point, torch.float64.itemsize, torch.int == torch.int32)
x = torch.tensor([1.0, 2.0])
attempts = [
    ("tensor(dtype=float64)", lambda: torch.tensor([1.0], dtype=torch.float64)),
    ("tensor(dtype=float)", lambda: torch.tensor([1.0], dtype=float)),
    ("zeros(dtype=double)", lambda: torch.zeros(2, dtype=torch.double)),
    ("ones(dtype=int32)", lambda: torch.ones(2, dtype=torch.int32)),
    ("full(dtype=float16)", lambda: torch.full((2,), 1.0, dtype=torch.float16)),
    ("arange(dtype=int)", lambda: torch.arange(3, dtype=torch.int)),
    ("to(float64)", lambda: x.to(torch.float64)),
    ("to(dtype=uint8)", lambda: x.to(dtype=torch.uint8)),
    ("type(float64)", lambda: x.type(torch.float64)),
    ("double()", lambda: x.double()),
    ("int()", lambda: x.int()),
    ("half()", lambda: x.half()),
    ("short()", lambda: x.short()),
    ("byte()", lambda: x.byte()),
    ("char()", lambda: x.char()),
    ("sum(dtype=float64)", lambda: x.sum(dtype=torch.float64)),
    ("zeros_like(dtype=int8)", lambda: torch.zeros_like(x, dtype=torch.int8)),
    ("new_zeros(dtype=bfloat16)", lambda: x.new_zeros(2, dtype=torch.bfloat16)),
]
for name, fn in attempts:
    try:
        fn()
        print(name, "ran")
    except NotImplementedError as e:
        print(name, "NotImplementedError:", e)
