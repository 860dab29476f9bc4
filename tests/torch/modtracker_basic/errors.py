# ModTracker's RuntimeError when the hierarchy is broken in forward, its "messed up" warning
# (recorded, not printed, since the warning names a library file), and register_user_hooks'
# AssertionError text, one hook of each kind, the reset of unspecified kinds, clear_user_hooks.
import warnings
import torch
import torch.nn as nn
from torch.distributed._tools.mod_tracker import ModTracker


class Clobber(nn.Module):
    def forward(self, x):
        tracker.parents = {"Global"}
        return x


with ModTracker() as tracker:
    try:
        Clobber()(torch.ones(1))
    except RuntimeError as e:
        print("RuntimeError", e)
    print("parents", sorted(tracker.parents))


class Rec(nn.Module):
    def forward(self, x, n):
        if n:
            return self(x, n - 1)
        return x


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with ModTracker() as tracker:
        Rec()(torch.ones(1), 3)
    print("warnings", len(caught), [w.category.__name__ for w in caught], str(caught[0].message))
    print("formatwarning replaced", warnings.formatwarning("msg", UserWarning, "f.py", 7))

t = ModTracker()
t.register_user_hooks(pre_fw_hook=print)
for kind in ("pre_fw_hook", "post_fw_hook", "pre_bw_hook", "post_bw_hook"):
    t.clear_user_hooks()
    t.register_user_hooks(**{kind: print})
    try:
        t.register_user_hooks(**{kind: print})
    except AssertionError as e:
        print("AssertionError", e)
t.clear_user_hooks()
t.register_user_hooks(pre_fw_hook=print, post_bw_hook=print)
t.register_user_hooks(post_fw_hook=print)
print("reset", t._user_pre_fw_hook, t._user_post_fw_hook is print, t._user_pre_bw_hook, t._user_post_bw_hook)
t.register_user_hooks()
print("all reset", t._user_post_fw_hook)
