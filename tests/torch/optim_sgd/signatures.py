# The optimizers' 1.13 signatures: their defaults dicts (what print(optimizer) and state_dict()
# show), SGD's required lr
import torch

p = [torch.nn.Parameter(torch.ones(2))]
for cls in [torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop, torch.optim.Adagrad,
            torch.optim.Adadelta, torch.optim.Adamax, torch.optim.NAdam, torch.optim.RAdam]:
    o = cls(p, lr=0.5)
    print(cls.__name__, o.defaults)
print(torch.optim.AdamW(p, lr=1e-3, weight_decay=0.01, betas=(0.9, 0.95)))
print(torch.optim.SGD(p, lr=0.1, momentum=0.9).state_dict()["param_groups"])
try:
    torch.optim.SGD(p)
except Exception as e:
    print(type(e).__name__, e)
for bad in [lambda: torch.optim.SGD(p, lr=0.1, fused=True), lambda: torch.optim.AdamW(p, fused=False)]:
    try:
        bad()
    except TypeError as e:
        print("TypeError")
