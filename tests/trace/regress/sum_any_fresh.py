# sum() and any()/all() over a generator of fresh objects: the builtin holds each item only in a
# C local while the addition (a bound __add__/__radd__) or the truth test (__bool__, __len__)
# allocates, so the item must be rooted (a collection there freed it: found by the differential
# fuzzer's loss line `sum((o * (k + 1)).sum() for k, o in enumerate(outs))` under GC stress).
import torch


class Money:
    def __init__(self, cents):
        self.cents = [cents]

    def __add__(self, other):
        other = other.cents[0] if isinstance(other, Money) else other
        return Money(self.cents[0] + other)

    __radd__ = __add__

    def __bool__(self):
        return bool([c for c in self.cents if c])

    def __repr__(self):
        return f"Money({self.cents[0]})"


for n in range(1, 40, 7):
    print(n, sum(Money(i) for i in range(n)), sum((Money(i) for i in range(n)), Money(100)))
    print(any(Money(0) for _ in range(n)), all(Money(i + 1) for i in range(n)))

outs = [torch.arange(float(k + 2)) for k in range(6)]
for step in range(5):
    loss = sum((o * (k + 1)).sum() for k, o in enumerate(outs))
    total = sum(o.sum() for o in outs)
    print(step, loss.item(), total.item(), any(o.sum() > 100 for o in outs), all(o.numel() for o in outs))
