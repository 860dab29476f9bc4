# ModTracker in forward: parents always holding "Global", fqns from named_children on first sight
# (root = type name), get_known_fqn, is_bw, __enter__ returning the tracker and __exit__ removing
# its global hooks, modules created after entering, shared submodules, exceptions in forward.
import torch
import torch.nn as nn
import torch.nn.modules.module as module_mod
from torch.distributed._tools.mod_tracker import ModTracker


class Leaf(nn.Module):
    def forward(self, x):
        print("   Leaf sees", sorted(tracker.parents), tracker.is_bw)
        return x + 1


class Branch(nn.Module):
    def __init__(self, shared):
        super().__init__()
        self.a = Leaf()
        self.shared = shared

    def forward(self, x):
        return self.shared(self.a(x))


class Root(nn.Module):
    def __init__(self):
        super().__init__()
        shared = Leaf()
        self.left = Branch(shared)
        self.right = Branch(shared)
        self.seq = nn.Sequential(Leaf(), nn.ReLU())

    def forward(self, x):
        return self.seq(self.right(self.left(x)))


root = Root()
tracker = ModTracker()
print("before", sorted(tracker.parents), tracker.get_known_fqn(root))
n_pre, n_post = len(module_mod._global_forward_pre_hooks), len(module_mod._global_forward_hooks)
with tracker as t:
    print("enter returns tracker", t is tracker)
    print("global hooks added", len(module_mod._global_forward_pre_hooks) - n_pre,
          len(module_mod._global_forward_hooks) - n_post)
    out = root(torch.zeros(1))
    print("after forward", sorted(tracker.parents), out.tolist())
    print("fqns", tracker.get_known_fqn(root), tracker.get_known_fqn(root.left),
          tracker.get_known_fqn(root.left.a), tracker.get_known_fqn(root.right.a),
          tracker.get_known_fqn(root.left.shared), tracker.get_known_fqn(root.seq[0]),
          tracker.get_known_fqn(root.seq[1]))
    late = Leaf()
    late(torch.zeros(1))
    print("late module fqn", tracker.get_known_fqn(late))
    print("unseen module", tracker.get_known_fqn(nn.Linear(1, 1)))
    root.left(torch.zeros(1))
    print("sub-call keeps first names", tracker.get_known_fqn(root.left))


    class Fails(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Leaf()

        def forward(self, x):
            self.inner(x)
            raise ValueError("boom")


    f = Fails()
    try:
        f(torch.zeros(1))
    except ValueError as e:
        print("ValueError", e, "parents restored", sorted(tracker.parents))
print("global hooks removed", len(module_mod._global_forward_pre_hooks) - n_pre,
      len(module_mod._global_forward_hooks) - n_post)
print("outside", sorted(tracker.parents))
root.seq(torch.zeros(1))
