# Ember-only output (recorded with `record_golden.sh --ember`): & | ^ ~ are bitwise in PyTorch.
# On bool tensors that is the logical op; Ember's tensor library has no bitwise integer kernels,
# so integer operands are refused rather than given a logical answer.
import torch

b = torch.tensor([True, False])
print((b & b).tolist(), (b | True).tolist(), (False ^ b).tolist(), (~b).tolist())
attempts = [
    ("int & int", lambda: torch.tensor([6]) & torch.tensor([3])),
    ("int | scalar", lambda: torch.tensor([6]) | 1),
    ("bool ^ int", lambda: b ^ 1),
    ("scalar & int", lambda: 5 & torch.tensor([3])),
    ("~int", lambda: ~torch.tensor([1])),
    ("int &= int", lambda: torch.tensor([6]).__iand__(torch.tensor([3]))),
]
for name, fn in attempts:
    try:
        print(name, fn())
    except NotImplementedError as e:
        print(name, "NotImplementedError:", e)
    except TypeError as e:
        print(name, "TypeError:", e)
