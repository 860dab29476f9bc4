# Engine callbacks (Variable._execution_engine.queue_callback): queued from hooks, they run once
# the whole backward is done, first in first out, after every hook and accumulation; a callback
# may queue another; _current_graph_task_id inside hooks and callbacks; each backward call
# runs its own callbacks.
import torch
from torch.autograd import Variable


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def rs(ts):
    return [r(t) for t in ts]

log = []
ids = set()


def note_id(where):
    ids.add((where, torch._C._current_graph_task_id() >= 0))


def cb(name):
    def run():
        note_id("callback")
        log.append(("callback", name, r(x.grad)))
        if name == "first":
            Variable._execution_engine.queue_callback(cb("queued by first"))
    return run


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x


def hy(g):
    note_id("hook")
    log.append(("y hook", r(g)))
    Variable._execution_engine.queue_callback(cb("first"))
    Variable._execution_engine.queue_callback(cb("second"))


y.register_hook(hy)
x.register_hook(lambda g: log.append(("x hook", r(g))))
y.sum().backward(retain_graph=True)
for entry in log:
    print(entry)
print(sorted(ids))
log.clear()
y.sum().backward()
print(len(log), log[-1])
print(torch._C._current_graph_task_id())
try:
    Variable._execution_engine.queue_callback(lambda: None)
except RuntimeError as e:
    print("RuntimeError", e)
