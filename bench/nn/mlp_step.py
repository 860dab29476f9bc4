"""One SGD training step of an MLP 784-256-256-10 (forward, cross-entropy, zero_grad, backward,
step) at batch 1 and batch 64.  Runs unchanged under Ember and PyTorch; prints "name
microseconds" lines (best of several rounds)."""
import sys
import time

import torch
import torch.nn as nn

if hasattr(torch, "set_num_threads"):
    torch.set_num_threads(1)
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()


def step(x, y):
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss


def bench(batch, iters, reps=5):
    x = torch.rand(batch, 784)
    y = torch.randint(0, 10, (batch,))
    for _ in range(10):
        step(x, y)
    best = None
    for _ in range(reps):
        t0 = time.process_time()
        for _ in range(iters):
            step(x, y)
        t = (time.process_time() - t0) / iters * 1e6
        best = t if best is None or t < best else best
    return best


scale = int(sys.argv[1]) if len(sys.argv) > 1 else 1
print("mlp_step_b1", round(bench(1, 2000 * scale), 2))
print("mlp_step_b64", round(bench(64, 300 * scale), 2))
