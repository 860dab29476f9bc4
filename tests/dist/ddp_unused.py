# A parameter that gets no gradient without find_unused_parameters: the first backward cannot
# finish its reduction, and the next forward raises PyTorch's error naming the parameter indices.
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = nn.Linear(2, 2)

    def forward(self, x):
        return self.a(x)


m = DDP(M())
for i in range(2):
    try:
        m(torch.ones(1, 2)).sum().backward()
        msg = "ok"
    except RuntimeError as e:
        msg = "RuntimeError: " + str(e)
    if dist.get_rank() == 0:
        print("iteration", i, msg)
dist.destroy_process_group()
