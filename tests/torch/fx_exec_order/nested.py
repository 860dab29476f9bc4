# Seed 002's execution-order helpers (torch.distributed.fsdp._trace_utils) on a nested model
# whose registration order differs from its execution order: the module forward order, the
# parameter execution order and each module's execution infos, next to the order forward
# pre-hooks observe when the model runs eagerly.
import functools

import torch
import torch.nn as nn
from torch.distributed.fsdp._trace_utils import TracingConfig, _ExecutionInfo, _init_execution_info, _patch_tracer


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        # registered out of execution order
        self.proj = nn.Linear(4, 4)
        self.gate = nn.Linear(4, 4)
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        return self.proj(self.norm(torch.relu(self.gate(x))))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 2)
        self.late = Block()
        self.early = Block()
        self.embed = nn.Linear(3, 4)
        self.scale = nn.Parameter(torch.ones(4))

    def forward(self, x):
        x = self.embed(x)
        x = self.early(x) * self.scale
        x = self.late(x)
        return self.head(x)


model = Net()
names = {m: n if n else "<root>" for n, m in model.named_modules()}
pnames = {id(p): n for n, p in model.named_parameters()}

config = TracingConfig()
print(type(config.tracer).__name__, config.concrete_args)
info = _init_execution_info(model)
print(isinstance(info, _ExecutionInfo), names[info.current_module], info.param_exec_order)
tracer = config.tracer
with _patch_tracer(tracer, model, info):
    print(isinstance(tracer.call_module, functools.partial), isinstance(tracer.create_proxy, functools.partial))
    graph = tracer.trace(model, config.concrete_args)
print(isinstance(tracer.call_module, functools.partial), isinstance(tracer.create_proxy, functools.partial))
print(names[info.current_module])

print("module_forward_order:", [names[m] for m in info.module_forward_order])
print("param_exec_order:", [pnames[id(p)] for p in info.param_exec_order])
print("registration order:", [n for n, _ in model.named_parameters()])
for m, infos in info.module_to_execution_infos.items():
    print(names[m], "->", [(names[sub], [n for n, _ in params]) for sub, params in infos])
print(len(graph.nodes), [n.op for n in graph.nodes].count("call_module"))

# eagerly: the order forward pre-hooks see, and the parameters of each module in that order
order = []
handles = [m.register_forward_pre_hook(lambda mod, args: order.append(mod)) for m in model.modules()]
out = model(torch.ones(2, 3))
for h in handles:
    h.remove()
print("pre-hooks:", [names[m] for m in order])
print(order == info.module_forward_order)
# the leaf modules' parameters in pre-hook order are the traced order without the parameters
# forward uses directly (scale)
eager_params = []
for m in order:
    if not list(m.children()):
        for p in m.parameters():
            if all(p is not q for q in eager_params):
                eager_params.append(p)
print("eager leaves:", [pnames[id(p)] for p in eager_params])
direct = [p for p in info.param_exec_order if p is model.scale]
print([pnames[id(p)] for p in direct],
      [pnames[id(p)] for p in info.param_exec_order if p is not model.scale] == [pnames[id(p)] for p in eager_params])
