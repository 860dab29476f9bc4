# Every optimizer's steps to the last bit of PyTorch 1.13 (weight decay, momentum, centered RMSprop,
# Adadelta: their second moments are addcmul_, whose last product ATen fuses into the add: the
# optimizers' own unfused helper differed in the last bits), and the lr schedulers' sequences
import torch, torch.nn as nn
def bits(t): return " ".join(float(v).hex() for v in t.detach().flatten().tolist()[:3])
cfgs = [("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=1e-2, nesterov=False)), ("Adam", dict(lr=1e-2, betas=(0.8, 0.99), eps=1e-6, weight_decay=1e-2, amsgrad=True)),
        ("AdamW", dict(lr=1e-2, weight_decay=0.1)), ("RMSprop", dict(lr=1e-2, alpha=0.9, momentum=0.5, centered=True, weight_decay=1e-3)),
        ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=1e-3, initial_accumulator_value=0.1)), ("Adadelta", dict(lr=1.0, rho=0.8, weight_decay=1e-3)),
        ("Adamax", dict(lr=2e-3, weight_decay=1e-3)), ("NAdam", dict(lr=2e-3, weight_decay=1e-3, momentum_decay=5e-3)), ("RAdam", dict(lr=1e-3, weight_decay=1e-3)),
        ("Rprop", dict(lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-5, 1))), ("ASGD", dict(lr=0.01, lambd=1e-3, t0=2)), ("SGD", dict(lr=0.1, maximize=True, momentum=0.5, nesterov=True))]
for name, kw in cfgs:
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
    opt = getattr(torch.optim, name)(net.parameters(), **kw)
    for i in range(12):
        loss = net(torch.randn(5, 4)).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    print(name, bits(net[0].weight), bits(net[2].bias))
torch.manual_seed(0)
p = [nn.Parameter(torch.randn(2))]
opt = torch.optim.SGD(p, lr=0.1)
for sch_name, mk in [("StepLR", lambda o: torch.optim.lr_scheduler.StepLR(o, 3, 0.5)), ("MultiStepLR", lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [2, 5], 0.1)),
                     ("ExponentialLR", lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.9)), ("CosineAnnealingLR", lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 5, 1e-4)),
                     ("OneCycleLR", lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=10)), ("CyclicLR", lambda o: torch.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, 3)),
                     ("LambdaLR", lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 0.95 ** e)), ("CosineAnnealingWarmRestarts", lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 3, 2)),
                     ("LinearLR", lambda o: torch.optim.lr_scheduler.LinearLR(o, 0.5, 1.0, 4)), ("PolynomialLR", lambda o: torch.optim.lr_scheduler.PolynomialLR(o, 5, 2.0)),
                     ("ConstantLR", lambda o: torch.optim.lr_scheduler.ConstantLR(o, 0.5, 3)), ("MultiplicativeLR", lambda o: torch.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9))]:
    opt = torch.optim.SGD(p, lr=0.1, momentum=0.9)
    s = mk(opt)
    lrs = []
    for e in range(8):
        opt.step(); s.step(); lrs.append(round(s.get_last_lr()[0], 8))
    print(sch_name, lrs)
opt = torch.optim.SGD(p, lr=0.1)
s = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
for v in [1.0, 0.9, 0.95, 0.97, 0.99, 0.5, 0.6, 0.7]:
    s.step(v)
print("plateau", opt.param_groups[0]["lr"])
seq = torch.optim.lr_scheduler.SequentialLR(torch.optim.SGD(p, lr=0.1), [torch.optim.lr_scheduler.ConstantLR(opt := torch.optim.SGD(p, lr=0.1), 0.1, 2), torch.optim.lr_scheduler.ExponentialLR(opt, 0.9)], milestones=[2]) if False else None
print(opt.state_dict()["param_groups"][0]["lr"])
