# torch 2.x forward hook options: prepend=True (runs before the hooks already registered),
# with_kwargs=True (pre-hooks see and may replace (args, kwargs); forward hooks get kwargs),
# always_call=True on a module's own forward hook (runs even when forward raises), and the
# error for a with_kwargs pre-hook returning something else than (args, kwargs).
# (_backport_2x gives the PyTorch 1.13 oracle these 2.x APIs; under Ember it does nothing.)
import warnings
import _backport_2x
import torch
import torch.nn as nn

log = []


class Scale(nn.Module):
    def forward(self, x, factor=1.0, shift=0.0):
        log.append("forward factor=" + str(factor) + " shift=" + str(shift))
        return x * factor + shift


m = Scale()
x = torch.tensor([1.0, 2.0])
m.register_forward_pre_hook(lambda mod, a: log.append("pre A"))
m.register_forward_pre_hook(lambda mod, a: log.append("pre B (prepended)"), prepend=True)
m.register_forward_hook(lambda mod, a, o: log.append("post A"))
m.register_forward_hook(lambda mod, a, o: log.append("post B (prepended)"), prepend=True)
m.register_forward_pre_hook(lambda mod, a: log.append("pre C"))
m(x)
print(log)
log.clear()
m._forward_pre_hooks.clear()
m._forward_hooks.clear()


def kw_pre(mod, args, kwargs):
    log.append("kw_pre args=" + str(len(args)) + " kwargs=" + str(sorted(kwargs.items())))
    new_kwargs = dict(kwargs)
    new_kwargs["shift"] = 100.0
    return (args[0] * 10,), new_kwargs


def kw_post(mod, args, kwargs, out):
    log.append("kw_post kwargs=" + str(sorted(kwargs.items())) + " out=" + str(out.tolist()))
    return out + 1


h1 = m.register_forward_pre_hook(kw_pre, with_kwargs=True)
h2 = m.register_forward_hook(kw_post, with_kwargs=True)
h3 = m.register_forward_hook(lambda mod, a, o: log.append("plain post args=" + str(a[0].tolist())))
y = m(x, factor=2.0)
print(log, y.tolist())
log.clear()
print("flags", len(m._forward_pre_hooks_with_kwargs), len(m._forward_hooks_with_kwargs))
h1.remove()
h2.remove()
h3.remove()
print("flags after remove", len(m._forward_pre_hooks_with_kwargs), len(m._forward_hooks_with_kwargs))

h = m.register_forward_pre_hook(lambda mod, a, k: "nonsense", with_kwargs=True)
try:
    m(x)
except RuntimeError as e:
    print("RuntimeError", e)
h.remove()


class Fails(nn.Module):
    def forward(self, x):
        log.append("Fails.forward")
        raise ValueError("no")


f = Fails()
f.register_forward_hook(lambda mod, a, o: log.append("always out=" + str(o)), always_call=True)
f.register_forward_hook(lambda mod, a, o: log.append("not always"))
try:
    f(x)
except ValueError as e:
    print("ValueError", e, log)
log.clear()
print("always flag", len(f._forward_hooks_always_called))


def explode(mod, a, o):
    raise RuntimeError("hook exploded")


f.register_forward_hook(explode, always_call=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        f(x)
    except ValueError as e:
        print("ValueError", e, log)
print([str(w.message) for w in caught])
