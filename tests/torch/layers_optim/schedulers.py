import torch
import torch.nn as nn
from torch.optim import lr_scheduler as S


def opt(kind="sgd", lr=0.1):
    p = [nn.Parameter(torch.ones(2))]
    if kind == "adam":
        return torch.optim.Adam(p, lr=lr)
    return torch.optim.SGD(p, lr=lr, momentum=0.9)


def run(name, make, steps=12, metric=None):
    o = opt("adam" if " adam" in name else "sgd")
    s = make(o)
    lrs = []
    for i in range(steps):
        o.step()
        if metric is not None:
            s.step(metric[i])
        else:
            s.step()
        lrs.append("%.6g" % (s.get_last_lr()[0] if metric is None else o.param_groups[0]["lr"]))
    print(name, " ".join(lrs))
    return o, s


run("StepLR", lambda o: S.StepLR(o, step_size=3, gamma=0.5))
run("MultiStepLR", lambda o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.1))
run("ExponentialLR", lambda o: S.ExponentialLR(o, gamma=0.9))
run("CosineAnnealingLR", lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.01))
run("CosineAnnealingWarmRestarts", lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001))
run("LambdaLR", lambda o: S.LambdaLR(o, lambda e: 1.0 / (e + 1)))
run("MultiplicativeLR", lambda o: S.MultiplicativeLR(o, lambda e: 0.95))
run("LinearLR", lambda o: S.LinearLR(o, start_factor=0.25, total_iters=4))
run("ConstantLR", lambda o: S.ConstantLR(o, factor=0.5, total_iters=3))
run("PolynomialLR", lambda o: S.PolynomialLR(o, total_iters=6, power=2.0))
o, s = run("OneCycleLR", lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=12))
print(" momentum", "%.6g" % o.param_groups[0]["momentum"])
o, s = run("OneCycleLR adam three_phase linear",
           lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=12, three_phase=True, anneal_strategy="linear"))
print(" betas", o.param_groups[0]["betas"])
o, s = run("CyclicLR", lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2"))
print(" momentum", "%.6g" % o.param_groups[0]["momentum"])
run("CyclicLR exp_range", lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=4,
                                                mode="exp_range", gamma=0.9, cycle_momentum=False))
import warnings
warnings.filterwarnings("ignore", message="The epoch parameter")  # SequentialLR steps its schedulers with step(0)
run("SequentialLR", lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.1, total_iters=2),
                                                 S.ExponentialLR(o, gamma=0.9)], milestones=[3]))
run("ChainedScheduler", lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=2),
                                                      S.ExponentialLR(o, gamma=0.9)]))
metric = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
o, s = run("ReduceLROnPlateau", lambda o: S.ReduceLROnPlateau(o, patience=1, factor=0.5, cooldown=1), metric=metric)
print(" state", sorted(s.state_dict().items()))

o = opt()
s = S.StepLR(o, step_size=2)
for _ in range(3):
    o.step()
    s.step()
print(sorted(s.state_dict().items()))
s2 = S.StepLR(opt(), step_size=5)
s2.load_state_dict(s.state_dict())
print(s2.last_epoch, s2.step_size, s2.get_last_lr())
print(o.param_groups[0]["initial_lr"])

# clip_grad
from torch.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters
ps = [nn.Parameter(torch.zeros(3)), nn.Parameter(torch.zeros(2, 2)), nn.Parameter(torch.zeros(1))]
for norm_type in [2.0, 1, float("inf"), 3]:
    ps[0].grad = torch.tensor([3.0, -4.0, 0.5])
    ps[1].grad = torch.tensor([[1.0, 2.0], [-2.0, 0.25]])
    ps[2].grad = None
    tot = clip_grad_norm_(ps, max_norm=2.0, norm_type=norm_type)
    print("norm", norm_type, "%.5f" % tot.item(), ps[0].grad, ps[1].grad)
ps[0].grad = torch.tensor([0.1, 0.2, 0.3])
ps[1].grad = torch.tensor([[0.1, 0.1], [0.1, 0.1]])
print("small", clip_grad_norm_(ps, 5.0), ps[0].grad)
print("single", clip_grad_norm_(ps[0], 0.1), ps[0].grad)
ps[0].grad = torch.tensor([3.0, -4.0, 0.5])
clip_grad_value_(ps, 1.0)
print("value", ps[0].grad, ps[1].grad)
ps[0].grad = torch.tensor([float("inf"), 1.0, 0.0])
try:
    clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError:", e)
print(clip_grad_norm_([nn.Parameter(torch.zeros(2))], 1.0))
v = parameters_to_vector(ps)
print(v)
vector_to_parameters(torch.arange(8.0), ps)
print(ps[0], ps[1], ps[2])
