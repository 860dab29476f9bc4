"""Module call overhead: the time of m(x) minus the time of m.forward(x) for a module whose
forward returns its input, with no hooks anywhere, then with one forward pre-hook and one forward
hook on the module.  Runs unchanged under Ember and PyTorch; prints "name microseconds" lines."""
import time

import torch
import torch.nn as nn

if hasattr(torch, "set_num_threads"):
    torch.set_num_threads(1)


class Passthrough(nn.Module):
    def forward(self, x):
        return x


N = 1000000


def best_of(fn, reps=7):
    best = None
    for _ in range(reps):
        t0 = time.process_time()
        fn()
        t = time.process_time() - t0
        best = t if best is None or t < best else best
    return best / N * 1e6


m = Passthrough()
x = torch.ones(1)
fwd = m.forward


def loop_forward():
    for _ in range(N):
        fwd(x)


def loop_call():
    for _ in range(N):
        m(x)


base = best_of(loop_forward)
plain = best_of(loop_call)
h1 = m.register_forward_pre_hook(lambda mod, args: None)
h2 = m.register_forward_hook(lambda mod, args, out: None)
hooked = best_of(loop_call)
h1.remove()
h2.remove()
print("forward_direct", round(base, 4))
print("call_no_hooks", round(plain, 4))
print("overhead_no_hooks", round(plain - base, 4))
print("call_two_hooks", round(hooked, 4))
print("overhead_two_hooks", round(hooked - base, 4))
