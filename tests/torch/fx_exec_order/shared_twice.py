# Seed 002's helpers with a module called twice (module_forward_order counts every call), a
# parameter shared by two modules (recorded once), a parameter used directly in forward, a
# tracer subclass and concrete_args given through TracingConfig.
import torch
import torch.nn as nn
import torch.fx
from torch.distributed.fsdp._trace_utils import TracingConfig, _init_execution_info, _patch_tracer


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return torch.tanh(self.lin(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = Cell()
        self.other = Cell()
        self.other.lin.weight = self.cell.lin.weight      # shared
        self.bias = nn.Parameter(torch.zeros(3))
        self.out = nn.Linear(3, 1)

    def forward(self, x, steps, residual=True):
        for _ in range(steps):
            x = self.cell(x)                                # the same module, called `steps` times
        y = self.other(x) + self.bias
        if residual:
            y = y + x
        return self.out(y)


class CellTracer(torch.fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return isinstance(m, Cell) or super().is_leaf_module(m, qualname)


model = Net()
names = {m: n if n else "<root>" for n, m in model.named_modules()}
pnames = {id(p): n for n, p in model.named_parameters()}
print([n for n, _ in model.named_parameters()])

for tracer_cls in (torch.fx.Tracer, CellTracer):
    config = TracingConfig(tracer=tracer_cls(), concrete_args={"steps": 2, "residual": True})
    info = _init_execution_info(model)
    with _patch_tracer(config.tracer, model, info):
        graph = config.tracer.trace(model, config.concrete_args)
    print(tracer_cls.__name__)
    print("  forward order:", [names[m] for m in info.module_forward_order])
    print("  param order:", [pnames[id(p)] for p in info.param_exec_order])
    for m, infos in info.module_to_execution_infos.items():
        print(" ", names[m], "->", [(names[sub], [n for n, _ in params]) for sub, params in infos])
    gm = torch.fx.GraphModule(model, graph)
    print(gm.code)

order = []
handles = [m.register_forward_pre_hook(lambda mod, args: order.append(names[mod])) for m in model.modules()]
model(torch.ones(1, 3), 2)
print("pre-hooks:", order)
