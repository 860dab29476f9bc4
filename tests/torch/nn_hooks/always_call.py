# Global forward hooks with always_call=True: they run even when forward raises (with output
# None), after the module's failure and before the exception propagates; hooks without the flag
# do not; an exception inside an always_call hook becomes a warning.
import warnings
import torch
import torch.nn as nn
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

log = []


class Boom(nn.Module):
    def forward(self, x):
        log.append("Boom.forward")
        raise ValueError("forward failed")


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Boom()

    def forward(self, x):
        log.append("Outer.forward")
        return self.inner(x)


def always(mod, args, out):
    log.append("always " + type(mod).__name__ + " out=" + str(out))


def normal(mod, args, out):
    log.append("normal " + type(mod).__name__)


h1 = register_module_forward_hook(always, always_call=True)
h2 = register_module_forward_hook(normal)
h3 = register_module_forward_pre_hook(lambda mod, args: log.append("pre " + type(mod).__name__))
try:
    Outer()(torch.ones(1))
except ValueError as e:
    print("ValueError", e)
for line in log:
    print(" ", line)
log.clear()

ok = nn.Identity()
ok(torch.ones(1))
print("no error: hooks in order", log)
log.clear()


def broken(mod, args, out):
    log.append("broken " + type(mod).__name__)
    raise RuntimeError("hook failed too")


h4 = register_module_forward_hook(broken, always_call=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        Boom()(torch.ones(1))
    except ValueError as e:
        print("still the original error:", type(e).__name__, e)
print("log", log)
print("warnings", [str(w.message) for w in caught], [w.category.__name__ for w in caught])
log.clear()


# an always_call hook that already ran normally is not run again when a later hook fails
def failing_normal(mod, args, out):
    log.append("failing normal hook")
    raise KeyError("k")


h4.remove()
h5 = register_module_forward_hook(failing_normal)
try:
    nn.Identity()(torch.ones(1))
except KeyError as e:
    print("KeyError", e)
print("log", log)
log.clear()
for h in (h1, h2, h3, h5):
    h.remove()
try:
    Boom()(torch.ones(1))
except ValueError:
    pass
print("after removal", log)
