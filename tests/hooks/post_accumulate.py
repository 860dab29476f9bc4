# Post-accumulate-grad hooks: they run right after a leaf's .grad is accumulated (seeing it),
# once per leaf per backward, in the engine's order across leaves; accumulation into an
# existing .grad; an optimizer step inside the hook.
import torch


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def rs(ts):
    return [r(t) for t in ts]

log = []
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([0.5, -0.5], requires_grad=True)
c = torch.tensor([3.0], requires_grad=True)
for name, t in (("a", a), ("b", b), ("c", c)):
    t.register_post_accumulate_grad_hook(lambda p, name=name: log.append((name, r(p.grad))))
a.register_hook(lambda g: log.append(("a tensor hook", r(g))))
y = (a * b).sum() * c + (a * a).sum()
y.backward(retain_graph=True)
print(log)
log.clear()
y.backward()
print(log)

# an SGD step in the hook (the optimizer-in-backward pattern)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)


def step(p):
    with torch.no_grad():
        p.sub_(0.5 * p.grad)
    p.grad = None


w.register_post_accumulate_grad_hook(step)
v.register_post_accumulate_grad_hook(step)
for i in range(3):
    (w * v).sum().backward()
    print(i, "w", r(w), "v", r(v), w.grad, v.grad)
