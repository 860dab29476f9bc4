# Hook handles: a hook whose handle was removed before backward does not fire (tensor hooks,
# node hooks, post-accumulate hooks); a hook removed by an earlier hook of the same backward
# does not fire; one removed while its own tensor's hooks are running still does (the engine
# calls a snapshot of the list); handles as context managers.
import torch


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def rs(ts):
    return [r(t) for t in ts]

log = []
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
h1 = x.register_hook(lambda g: log.append("x hook 1"))
h2 = x.register_hook(lambda g: log.append("x hook 2 (removed)"))
h3 = y.grad_fn.register_prehook(lambda gO: log.append("pre (removed)"))
h4 = y.grad_fn.register_hook(lambda gI, gO: log.append("post"))
h5 = x.register_post_accumulate_grad_hook(lambda p: log.append("post acc (removed)"))
h2.remove()
h3.remove()
h5.remove()
h5.remove()
y.sum().backward()
print(log)

log.clear()
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = b * 2
later = []


def on_c(g):
    log.append("c hook removes a's second hook")
    later[1].remove()


c.register_hook(on_c)
later.append(a.register_hook(lambda g: log.append("a hook 1")))
later.append(a.register_hook(lambda g: log.append("a hook 2")))


def b1(g):
    log.append("b hook 1 removes b hook 2")
    hb2.remove()


b.register_hook(b1)
hb2 = b.register_hook(lambda g: log.append("b hook 2 still runs"))
c.sum().backward()
print(log)

log.clear()
m = torch.tensor([2.0], requires_grad=True)
with m.register_hook(lambda g: log.append(("inside with", r(g))) or g * 0):
    (m * 5).backward()
print(log, "m.grad", r(m.grad))
(m * 5).backward()
print(log, "m.grad", r(m.grad))
