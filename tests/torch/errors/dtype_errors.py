# dtype mismatches: PyTorch's exceptions and messages (and the conversions that are allowed).
import torch

cases = [
    ("dot", lambda: torch.ones(2).dot(torch.ones(2, dtype=torch.long))),
    ("index_put", lambda: torch.ones(3).index_put_((torch.tensor([0]),), torch.tensor([1]))),
    ("setitem long into float", lambda: torch.ones(3).__setitem__(torch.tensor([0]), torch.tensor([5]))),
    ("add_ float into long", lambda: torch.ones(2, dtype=torch.long).add_(torch.ones(2))),
    ("mul_ float scalar into long", lambda: torch.ones(2, dtype=torch.long).mul_(1.5)),
    ("add_ long into bool", lambda: torch.ones(2, dtype=torch.bool).add_(torch.ones(2, dtype=torch.long))),
    ("gather float index", lambda: torch.ones(2).gather(0, torch.tensor([0.0]))),
    ("index_select float", lambda: torch.ones(2).index_select(0, torch.tensor([0.0]))),
    ("cat mixed", lambda: torch.cat([torch.ones(1), torch.ones(1, dtype=torch.long)]).dtype),
    ("where cond float", lambda: torch.where(torch.ones(2), torch.ones(2), torch.zeros(2))),
    ("copy_ float into long", lambda: torch.ones(2, dtype=torch.long).copy_(torch.tensor([1.5, 2.5])).tolist()),
    ("sub bool", lambda: torch.tensor([True]) - torch.tensor([True])),
    ("neg bool", lambda: -torch.tensor([True])),
    ("long grad", lambda: torch.ones(2).requires_grad_().__setattr__("grad", torch.ones(2, dtype=torch.long))),
    ("backward long grad", lambda: (torch.ones(2, requires_grad=True) * 2).backward(torch.ones(2, dtype=torch.long))),
    ("div_ long", lambda: torch.ones(2, dtype=torch.long).div_(2)),
    ("floor_divide float/long", lambda: (torch.tensor([5.0]) // torch.tensor([2])).tolist()),
    ("maximum mixed", lambda: torch.maximum(torch.tensor([1]), torch.tensor([1.5])).dtype),
    ("masked_fill float value on long", lambda: torch.ones(2, dtype=torch.long).masked_fill(torch.tensor([True, False]), 1.5).tolist()),
    ("fill_ float on long", lambda: torch.ones(2, dtype=torch.long).fill_(2.7).tolist()),
    ("clamp long float", lambda: torch.tensor([1, 5]).clamp(0.5, 2.5).dtype),
]
for name, fn in cases:
    try:
        print(name, "->", fn())
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
