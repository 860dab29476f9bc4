# ModTracker in backward: multi-grad hooks on outputs (mode "any") add a module back, hooks on
# inputs (mode "all") remove it; modules whose inputs need no grad are popped by post-backward
# engine callbacks; parents reset to {"Global"} by the engine callback at the end; is_bw; a
# module returning a tuple; a second backward with a fresh graph.
import torch
import torch.nn as nn
from torch.distributed._tools.mod_tracker import ModTracker

events = []


def pre_bw(mod, args):
    events.append("pre_bw  " + str(tracker.get_known_fqn(mod)) + " " + str(sorted(tracker.parents)) + " is_bw=" + str(tracker.is_bw))


def post_bw(mod, args):
    events.append("post_bw " + str(tracker.get_known_fqn(mod)) + " " + str(sorted(tracker.parents)))


class Split(nn.Module):
    def forward(self, x):
        return x * 2, x * 3


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(2, 2)
        self.split = Split()
        self.head = nn.Linear(2, 1)

    def forward(self, x):
        a, b = self.split(self.embed(x))
        return self.head(a + b)


net = Net()
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) + i * 0.1)
x = torch.tensor([[1.0, 2.0]])          # needs no grad: Net and embed are popped by callbacks
with ModTracker() as tracker:
    tracker.register_user_hooks(pre_bw_hook=pre_bw, post_bw_hook=post_bw)
    out = net(x)
    print("pending post-backward callbacks", len(tracker._post_bw_callbacks_to_enqueue))
    out.sum().backward()
    for e in events:
        print(e)
    print("after backward", sorted(tracker.parents), "is_bw", tracker.is_bw,
          "pending", len(tracker._post_bw_callbacks_to_enqueue))
    events.clear()
    xg = torch.tensor([[1.0, 2.0]], requires_grad=True)
    net(xg).sum().backward()
    for e in events:
        print(e)
    print("after second backward", sorted(tracker.parents))
print("grads", [round(v, 4) for v in net.embed.weight.grad.reshape(-1).tolist()],
      [round(v, 4) for v in xg.grad.reshape(-1).tolist()])
