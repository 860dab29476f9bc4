"""Writes fixtures/module.pt with real PyTorch (1.13): a whole module pickled by torch.save(model)
(not a state_dict), made of torch.nn's own classes so that loading needs no script class:

    /usr/bin/python3 /work/shared/oracle/run_oracle.py tests/torch/checkpoint/make_module_fixture.py

load_module.py loads it in the default suite."""
import os

import torch
import torch.nn as nn

torch.manual_seed(0)
m = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Tanh(), nn.Dropout(0.1), nn.Linear(8, 3))
m[1].weight.data.uniform_(0.5, 1.5)
m.eval()
torch.save(m, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "module.pt"))
