# A compiled function from an imported module: its code object is permanent in Ember's collector
# (vm/gc.c, "Permanent objects"), and the tracer's compiled entries hang off it; they, and the
# tensors their guards and graphs hold, must survive collections while the function is in use.
import gc
import os
import shutil
import sys
import tempfile

import torch

d = tempfile.mkdtemp()
with open(os.path.join(d, "netmod.py"), "w") as f:
    f.write('''
import torch

SCALE = torch.tensor([2.0, 3.0])


def step(x, k):
    y = x * SCALE + k
    return y.relu().sum()
''')
sys.path.insert(0, d)
import netmod

f = torch.compile(netmod.step)
x = torch.tensor([1.0, -4.0])
print(f(x, 1))
gc.collect()
junk = [torch.zeros(64) for _ in range(2000)]
gc.collect()
print(f(x, 1), f(x, 2))
netmod.SCALE = torch.tensor([-1.0, 0.5])
gc.collect()
junk = [torch.ones(64) for _ in range(2000)]
gc.collect()
print(f(x, 1), f(x * 2, 3))
sys.path.remove(d)
shutil.rmtree(d)
