# A minGPT-style model (embeddings, causal attention with softmax, LayerNorm, a ReLU MLP,
# cross_entropy) trained 8 steps with AdamW prints PyTorch 1.13's losses to the last digit: the
# kernels' reduction orders and fused multiply-adds, and 1.13's single-tensor AdamW update.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1337)


class Block(nn.Module):
    def __init__(self, d, h, T):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.ReLU(), nn.Linear(4 * d, d))
        self.h = h
        self.register_buffer("mask", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.attn(self.ln1(x)).split(C, dim=2)
        q = q.view(B, T, self.h, C // self.h).transpose(1, 2)
        k = k.view(B, T, self.h, C // self.h).transpose(1, 2)
        v = v.view(B, T, self.h, C // self.h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, V=65, d=48, h=3, T=16, L=3):
        super().__init__()
        self.tok = nn.Embedding(V, d)
        self.pos = nn.Embedding(T, d)
        self.blocks = nn.Sequential(*[Block(d, h, T) for _ in range(L)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, V, bias=False)

    def forward(self, idx, targets):
        B, T = idx.shape
        x = self.tok(idx) + self.pos(torch.arange(T))
        logits = self.head(self.ln(self.blocks(x)))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


model = GPT()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
data = torch.randint(0, 65, (400,))
for step in range(8):
    ix = torch.randint(0, 400 - 17, (4,))
    xb = torch.stack([data[i:i + 16] for i in ix])
    yb = torch.stack([data[i + 1:i + 17] for i in ix])
    loss = model(xb, yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, loss.item())
