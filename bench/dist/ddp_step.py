"""A DistributedDataParallel training step on 2 ranks (forward, backward with the bucketed
all-reduce, SGD step): seconds per step (median of 10 after 3 warm-up steps), run unchanged under
Ember and PyTorch.  --model mlp: 4 x Linear(1024) + ReLU, batch 64 per rank (4.2 M parameters);
--model gpt: a small GPT (4 layers, 4 heads, width 128, context 64, vocabulary 96), batch 8 per
rank.  Under Ember it also prints the collectives' time and how much of it backward hid:
`hidden = 1 - (time waited for the buckets) / (time the all-reduces ran)`.
usage (under a launcher): ddp_step.py --model mlp|gpt [--backend gloo|mpi]"""
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


class Attention(nn.Module):
    def __init__(self, d, heads, ctx):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (C // self.heads) ** 0.5)
        # causal mask built here: a bool buffer would be broadcast by DDP, which 1.13's gloo refuses
        att = att.masked_fill(torch.arange(T).view(T, 1) < torch.arange(T).view(1, T), float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, d, heads, ctx):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, heads, ctx)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab=96, d=128, layers=4, heads=4, ctx=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.Sequential(*[Block(d, heads, ctx) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, idx):
        T = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(T))
        return self.head(self.ln(self.blocks(x)))


model_name = arg("--model", "mlp")
dist.init_process_group(arg("--backend", "gloo"))
rank = dist.get_rank()
if model_name == "mlp":
    model = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(1024, 1024), nn.ReLU())])
    x = torch.sin(torch.arange(64 * 1024).float().reshape(64, 1024) + rank)
    y = torch.cos(torch.arange(64 * 1024).float().reshape(64, 1024))

    def loss_fn(m):
        return F.mse_loss(m(x), y)
else:
    model = GPT()
    idx = (torch.arange(8 * 65) * (7 + rank)) % 96
    inp, tgt = idx.view(8, 65)[:, :64], idx.view(8, 65)[:, 1:]

    def loss_fn(m):
        return F.cross_entropy(m(inp).reshape(-1, 96), tgt.reshape(-1))
ddp = DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.01)


def step():
    opt.zero_grad()
    loss_fn(ddp).backward()
    opt.step()


for _ in range(3):
    step()
times = []
pg = dist.distributed_c10d._get_default_group()
stats = hasattr(pg, "_reset_stats")
if stats:
    pg._reset_stats()
for _ in range(10):
    dist.barrier()
    t0 = time.perf_counter()
    step()
    times.append(time.perf_counter() - t0)
if stats:
    n_ops, busy, waited = pg._stats()
took = torch.tensor([sorted(times)[len(times) // 2]])
dist.all_reduce(took, op=dist.ReduceOp.MAX)
if rank == 0:
    print("step_s %.6f" % took.item())
    print("params", sum(p.numel() for p in model.parameters()))
    if stats:
        # the 10 barriers are collectives too: count only the bucket all-reduces' share
        print("comm_s %.6f" % busy)
        print("hidden %.4f" % max(0.0, 1.0 - waited / busy if busy > 0 else 0.0))
dist.destroy_process_group()
