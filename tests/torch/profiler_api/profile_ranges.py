# torch.profiler / torch.autograd.profiler as scripts use them: record_function ranges (nested,
# as a decorator), the schedule's recording windows and on_trace_ready, key_averages and the
# table's layout, the chrome trace.  Op-level events and all times differ between runtimes and
# runs, so only the user-visible structure is printed.
import json
import os
import tempfile

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule


def is_user(name):
    # (PyTorch's AccumulateGrad also records a "detach" range of its own)
    return not (name.startswith("aten::") or name.startswith("autograd::") or "Backward" in name
                or name.startswith("torch::") or name.startswith("[memory]") or name == "detach")


def tree(events):
    out = []
    for e in events:
        if not is_user(e.name):
            continue
        p = e.cpu_parent
        while p is not None and not is_user(p.name):
            p = p.cpu_parent
        out.append((e.name, p.name if p is not None else None))
    return out


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))
x = torch.randn(8, 10)


@record_function("loss_fn")
def loss_fn(y):
    return y.pow(2).mean()


with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    with record_function("forward"):
        with record_function("inner"):
            y = model(x)
        loss = loss_fn(y)
    with record_function("backward"):
        loss.backward()
print(tree(prof.events()))
ev = prof.events()
fwd = [e for e in ev if e.name == "forward"][0]
print(fwd.count, fwd.cpu_parent, [c.name for c in fwd.cpu_children if is_user(c.name)])
print(fwd.cpu_time_total >= fwd.self_cpu_time_total >= 0, fwd.cpu_time_total > 0)
print(all(e.time_range.start <= e.time_range.end for e in ev))
print(any(e.name == "aten::addmm" for e in ev), any(e.name.startswith("aten::") for e in ev))
ops = [e for e in ev if e.name == "aten::addmm"]
print(ops[0].input_shapes[1:3] if ops else None, ops[0].cpu_parent is not None)

avg = prof.key_averages()
print(type(avg).__name__, sorted(a.key for a in avg if is_user(a.key)))
print([(a.key, a.count) for a in avg if a.key in ("forward", "inner", "loss_fn")])
table = avg.table(sort_by="cpu_time_total", row_limit=5)
lines = table.splitlines()
print(lines[1].split())
print(len(lines), lines[0] == lines[2] == lines[-2], lines[-1].startswith("Self CPU time total: "))
print(len(avg.table(sort_by="self_cpu_time_total", row_limit=3).splitlines()))
print("Input Shapes" in prof.key_averages(group_by_input_shape=True).table(row_limit=3))
print("Input Shapes" in avg.table(row_limit=3))
print(prof.key_averages().table(header="HEADER", row_limit=1).splitlines()[1])
tot = avg.total_average()
print(tot.key, tot.count == sum(a.count for a in avg))

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "trace.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    names = [e["name"] for e in trace if e.get("ph") == "X"]
    print(type(trace).__name__, "forward" in names, "inner" in names,
          all(e["pid"] == "CPU functions" and e["dur"] >= 0 for e in trace))

# the schedule: wait 1, warmup 1, active 2, twice; each window ends in on_trace_ready
ready = []


def on_ready(p):
    ready.append(sorted({e.name for e in p.events() if e.name.startswith("ProfilerStep") or e.name == "work"}))


sched = schedule(wait=1, warmup=1, active=2, repeat=2)
print([sched(i).name for i in range(10)])
with profile(activities=[ProfilerActivity.CPU], schedule=sched, on_trace_ready=on_ready) as p:
    for step in range(10):
        with record_function("work"):
            model(x)
        p.step()
print(ready)
print(p.step_num)

# the autograd profiler's own API
with torch.autograd.profiler.profile() as ap:
    with torch.autograd.profiler.record_function("outer"):
        torch.mm(x, x.t())
print([e.name for e in ap.function_events if is_user(e.name)])
print(str(ap).splitlines()[1].split())
print(ap.key_averages().table().splitlines()[-1].startswith("Self CPU time total"))
with torch.autograd.profiler.profile(enabled=False) as off:
    torch.mm(x, x.t())
print(off)
try:
    torch.autograd.profiler.profile().key_averages()
except RuntimeError as e:
    print("RuntimeError", e)
with record_function("outside"):
    pass
print("ok")
