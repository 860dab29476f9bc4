# What ModTracker (seed 001) and seed 002's execution-order recorder see on each rank of a DDP and
# of an FSDP training step: tracker_ranks.sh runs this with 1 and with 2 processes and requires
# every rank to print exactly what the single process prints.
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed._tools.mod_tracker import ModTracker
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp._trace_utils import _init_execution_info, _patch_tracer
from torch.distributed.fsdp.wrap import ModuleWrapPolicy
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        return torch.relu(self.fc(x)) + x


def make():
    return nn.Sequential(Block(), Block(), nn.Linear(6, 2))


# seed 002's recorder on the plain model
model = make()
names = {m: n for n, m in model.named_modules()}
pnames = {p: n for n, p in model.named_parameters()}
tracer = torch.fx.Tracer()
info = _init_execution_info(model)
with _patch_tracer(tracer=tracer, root_module=model, execution_info=info):
    tracer.trace(model)
print("module_forward_order", [names[m] for m in info.module_forward_order])
print("param_exec_order", [pnames[p] for p in info.param_exec_order])


def tracked_step(wrapped, label):
    events = []
    t = ModTracker()
    t.register_user_hooks(pre_fw_hook=lambda m, i: events.append("pre_fw " + t.get_known_fqn(m)),
                          post_fw_hook=lambda m, i, o: events.append("post_fw " + t.get_known_fqn(m)),
                          pre_bw_hook=lambda m, g: events.append("pre_bw " + t.get_known_fqn(m)),
                          post_bw_hook=lambda m, g: events.append("post_bw " + t.get_known_fqn(m)))
    with t:
        wrapped(torch.ones(3, 6)).sum().backward()
    print(label, len(events), "events")
    for e in events:
        print("  ", label, e)


tracked_step(DDP(make()), "ddp")
f = FSDP(make(), auto_wrap_policy=ModuleWrapPolicy({Block}))
print("fsdp order", f._exec_order_names())
tracked_step(f, "fsdp")
dist.destroy_process_group()
