# Forward pre-hooks and forward hooks: per-module and global (torch.nn.modules.module) in
# PyTorch's order, replacing inputs and outputs, kwargs passed to forward only, handles
# (remove, context manager, ids), the hook dicts, and hooks added or removed during a call.
import torch
import torch.nn as nn
import torch.nn.modules.module as module_mod

log = []


class Add(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x, extra=0.0):
        log.append("forward k=" + str(self.k))
        return x + self.k + extra


m = Add(1.0)
x = torch.tensor([1.0, 2.0])

h_pre = m.register_forward_pre_hook(lambda mod, args: log.append("pre " + type(args).__name__ + str(len(args))))
h_post = m.register_forward_hook(lambda mod, args, out: log.append("post " + str(out.tolist())))
g_pre = module_mod.register_module_forward_pre_hook(lambda mod, args: log.append("global pre " + type(mod).__name__))
g_post = module_mod.register_module_forward_hook(lambda mod, args, out: log.append("global post " + type(mod).__name__))
print("hook dicts", len(m._forward_pre_hooks), len(m._forward_hooks), len(module_mod._global_forward_pre_hooks),
      len(module_mod._global_forward_hooks))
print("ids increase", h_pre.id < h_post.id < g_pre.id < g_post.id)
y = m(x, extra=10.0)
print(log, y.tolist())
log.clear()

# replacing: a pre-hook's single value is wrapped in a tuple; tuples replace args
h1 = m.register_forward_pre_hook(lambda mod, args: args[0] * 2)
h2 = m.register_forward_pre_hook(lambda mod, args: (args[0] + 100,))
h3 = m.register_forward_hook(lambda mod, args, out: out * -1)
h4 = m.register_forward_hook(lambda mod, args, out: log.append("last post sees " + str(out.tolist()) + " args " + str(args[0].tolist())))
y = m(x)
print(log, y.tolist())
log.clear()
for h in (h1, h2, h3, h4, g_pre, g_post):
    h.remove()
h1.remove()
print("removed twice ok", len(m._forward_pre_hooks), len(m._forward_hooks), len(module_mod._global_forward_hooks))

# a hook that removes a later hook: the call's snapshot still runs it; the next call does not
later = []


def remover(mod, args):
    log.append("remover")
    later[0].remove()


def victim(mod, args):
    log.append("victim")


h_r = m.register_forward_pre_hook(remover)
later.append(m.register_forward_pre_hook(victim))
m(x)
print("first call", log)
log.clear()
m(x)
print("second call", log)
log.clear()
h_r.remove()


# a hook registering another hook: visible from the next call
def adder(mod, args):
    log.append("adder")
    if len(log) < 3:
        mod.register_forward_pre_hook(lambda mod2, a: log.append("added"))


h_a = m.register_forward_pre_hook(adder)
m(x)
print("call 1", log)
log.clear()
m(x)
print("call 2", log)
log.clear()
h_a.remove()
m._forward_pre_hooks.clear()
m._forward_hooks.clear()

# context-manager handle
with m.register_forward_hook(lambda mod, a, o: log.append("inside with")):
    m(x)
m(x)
print("with handle", log)
log.clear()

# global hooks see every module, nested, before the module's own hooks
seq = nn.Sequential(Add(1.0), nn.Sequential(Add(2.0)))
seq.register_forward_pre_hook(lambda mod, a: log.append("seq pre"))
seq[1][0].register_forward_hook(lambda mod, a, o: log.append("inner post"))
g1 = module_mod.register_module_forward_pre_hook(lambda mod, a: log.append("G pre " + type(mod).__name__))
g2 = module_mod.register_module_forward_hook(lambda mod, a, o: log.append("G post " + type(mod).__name__))
out = seq(x)
g1.remove()
g2.remove()
for line in log:
    print(" ", line)
log.clear()
print("global hook replaces output", end=" ")
g3 = module_mod.register_module_forward_hook(lambda mod, a, o: o + 1000 if isinstance(mod, Add) else None)
print(seq(x).tolist())
g3.remove()
print("after removal", seq(x).tolist(), log[-1])
