"""Training steps as a user writes them, eager or under torch.compile: forward, loss, backward,
SGD step.  Models: an MLP 784-256-256-10 at batch 1 and 64, and a pointwise-heavy GELU MLP with
layer norm and residual connections (LayerNorm -> Linear -> GELU -> Linear -> residual, 4
blocks, width 128) at batch 32, and a minGPT-style block (causal self-attention + GELU MLP, pre-
LayerNorm, width 64, 4 heads, 32 positions) with a 10-class head at batch 4.  Runs unchanged under Ember and PyTorch (PyTorch 1.13 has no
torch.compile: run it with "eager").  Prints "name microseconds" lines, best of several rounds.

Both sides run at one thread (torch.set_num_threads(1)) unless a thread count is given; with more
than one thread the figures are wall time (CPU time would add the threads up).

usage: train_step.py eager|compiled [scale] [threads] [model,model...]"""
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

mode = sys.argv[1] if len(sys.argv) > 1 else "eager"
scale = int(sys.argv[2]) if len(sys.argv) > 2 else 1
threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
if threads != 1 or hasattr(torch, "set_num_threads"):   # older Embers (bench/compare.py) lack it
    torch.set_num_threads(threads)
clock = time.process_time if threads == 1 else time.perf_counter
only = set(sys.argv[4].split(",")) if len(sys.argv) > 4 else None


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, width)
        self.down = nn.Linear(width, width)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class GeluMLP(nn.Module):
    def __init__(self, width, blocks, classes):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(width) for _ in range(blocks)])
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        return self.head(self.blocks(x))


class Attention(nn.Module):
    def __init__(self, d, heads, seq):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        i = torch.arange(seq)
        self.register_buffer("mask", (i.view(seq, 1) < i.view(1, seq)).view(1, 1, seq, seq))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        h = self.heads
        q = q.view(B, T, h, C // h).transpose(1, 2)
        k = k.view(B, T, h, C // h).transpose(1, 2)
        v = v.view(B, T, h, C // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = F.softmax(att.masked_fill(self.mask[:, :, :T, :T], float("-inf")), dim=-1)
        return self.proj((att @ v).transpose(1, 2).contiguous().view(B, T, C))


class GPTBlock(nn.Module):
    def __init__(self, d, heads, seq, classes):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, heads, seq)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.out(F.gelu(self.fc(self.ln2(x))))
        return self.head(x).view(-1, self.head.out_features)


def make_step(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    fwd = torch.compile(model) if mode == "compiled" else model

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(fwd(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def bench(step, x, y, iters, reps=5):
    for _ in range(5):
        step(x, y)
    best = None
    for _ in range(reps):
        t0 = clock()
        for _ in range(iters):
            step(x, y)
        t = (clock() - t0) / iters * 1e6
        best = t if best is None or t < best else best
    return best


torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
step = make_step(mlp)
if only is None or "mlp_b1" in only:
    print("mlp_b1", round(bench(step, torch.rand(1, 784), torch.randint(0, 10, (1,)), 1000 * scale), 2))
if only is None or "mlp_b64" in only:
    print("mlp_b64", round(bench(step, torch.rand(64, 784), torch.randint(0, 10, (64,)), 150 * scale), 2))
gelu = GeluMLP(128, 4, 10)
step = make_step(gelu)
if only is None or "gelu_mlp_b32" in only:
    print("gelu_mlp_b32", round(bench(step, torch.rand(32, 128), torch.randint(0, 10, (32,)), 200 * scale), 2))
gpt = GPTBlock(64, 4, 32, 10)
step = make_step(gpt)
if only is None or "gpt_block_b4" in only:
    print("gpt_block_b4", round(bench(step, torch.rand(4, 32, 64), torch.randint(0, 10, (4 * 32,)), 100 * scale), 2))
