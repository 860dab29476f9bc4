# ModTracker around compiled code: ModTracker's global module hooks are Ember library code, so
# the tracer turns them into module marker nodes instead of graph breaks; the runtime runs them
# at their place in the compiled forward, and the gradient hooks they register fire inside the
# compiled backward.  The tracker must see what it sees around the eager model: the same
# `parents` at every user hook, forward and backward, and is_bw.
import torch
import torch.nn as nn
from torch.distributed._tools.mod_tracker import ModTracker


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Inner()
        self.b = Inner()
        self.head = nn.Linear(3, 1)

    def forward(self, x):
        h = self.a(x)
        h = self.b(h) + h
        return self.head(h)


torch.manual_seed(0)
net = Net()
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (0.5 + 0.1 * i))


def loss_fn(model, x):
    return model(x).sum()


def run(title, fn, model, x):
    print("==", title)
    with ModTracker() as tracker:
        tracker.register_user_hooks(
            pre_fw_hook=lambda m, i: print("  pre_fw ", tracker.get_known_fqn(m), sorted(tracker.parents), tracker.is_bw),
            post_fw_hook=lambda m, i, o: print("  post_fw", tracker.get_known_fqn(m), sorted(tracker.parents)),
            pre_bw_hook=lambda m, g: print("  pre_bw ", tracker.get_known_fqn(m), sorted(tracker.parents), tracker.is_bw),
            post_bw_hook=lambda m, g: print("  post_bw", tracker.get_known_fqn(m), sorted(tracker.parents)),
        )
        loss = fn(model, x)
        print("  loss", round(loss.item(), 4), "parents after forward", sorted(tracker.parents))
        loss.backward()
        print("  after backward", sorted(tracker.parents), tracker.is_bw)
    print("  grad", [round(v, 4) for v in net.head.weight.grad.reshape(-1).tolist()])
    net.zero_grad()


x = torch.tensor([[1.0, -0.5, 2.0], [0.25, 1.5, -1.0]], requires_grad=True)
run("eager", loss_fn, net, x)
run("compiled function", torch.compile(loss_fn), net, x)
run("compiled module", loss_fn, torch.compile(net), x)
run("compiled function, second call", torch.compile(loss_fn), net, x)
