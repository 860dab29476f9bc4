"""A small character-level GPT, trained for a minute on a text that ships with every Debian system
(the GPL-3 licence, /usr/share/common-licenses/GPL-3), then sampled greedily.

    ember examples/gpt/train_gpt.py [--seconds S] [--steps N] [--compile] [--text FILE]
    python3 examples/gpt/train_gpt.py ...        # the same script on CPython + PyTorch

A decoder-only transformer: token and position embeddings, pre-norm blocks of causal multi-head
self-attention and an MLP, a final LayerNorm and a linear head; AdamW. It trains for --seconds
(60) or --steps, whichever ends first, with a progress line every few seconds. With --compile the
training step runs under torch.compile."""
import io
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F



class Args:
    seconds = 60.0
    steps = 1000000
    compile = False
    text = "/usr/share/common-licenses/GPL-3"
    seed = 0


def parse_args(argv):
    args = Args()
    i = 0
    while i < len(argv):
        name = argv[i]
        if name == "--compile":
            args.compile = True
        elif name in ("--seconds", "--steps", "--text", "--seed") and i + 1 < len(argv):
            i += 1
            kind = {"--seconds": float, "--steps": int, "--text": str, "--seed": int}[name]
            setattr(args, name[2:], kind(argv[i]))
        else:
            sys.exit("usage: train_gpt.py [--seconds S] [--steps N] [--compile] [--text FILE] [--seed N]")
        i += 1
    return args


args = parse_args(sys.argv[1:])

BLOCK = 32        # context length in characters
BATCH = 16
EMBED = 48
HEADS = 4
LAYERS = 2


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(EMBED, 3 * EMBED)
        self.proj = nn.Linear(EMBED, EMBED)
        # causal mask: position i sees positions j <= i
        pos = torch.arange(BLOCK)
        self.register_buffer("mask", (pos.reshape(1, BLOCK) <= pos.reshape(BLOCK, 1)).reshape(1, 1, BLOCK, BLOCK))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(EMBED, dim=2)
        # (b, heads, t, head_dim)
        q = q.reshape(b, t, HEADS, c // HEADS).transpose(1, 2)
        k = k.reshape(b, t, HEADS, c // HEADS).transpose(1, 2)
        v = v.reshape(b, t, HEADS, c // HEADS).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // HEADS))
        att = att.masked_fill(~self.mask[:, :, :t, :t], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(EMBED)
        self.attn = CausalSelfAttention()
        self.ln2 = nn.LayerNorm(EMBED)
        self.mlp = nn.Sequential(nn.Linear(EMBED, 4 * EMBED), nn.GELU(), nn.Linear(4 * EMBED, EMBED))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.tok = nn.Embedding(vocab, EMBED)
        self.pos = nn.Embedding(BLOCK, EMBED)
        self.blocks = nn.Sequential(*[Block() for _ in range(LAYERS)])
        self.ln = nn.LayerNorm(EMBED)
        self.head = nn.Linear(EMBED, vocab)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t).reshape(1, t))
        return self.head(self.ln(self.blocks(x)))


def train_step(model, opt, xb, yb):
    logits = model(xb)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), yb.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def main():
    with io.open(args.text, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = torch.tensor([stoi[ch] for ch in text])
    print("text: %s, %d characters, vocabulary %d" % (args.text, len(text), len(chars)))

    torch.manual_seed(args.seed)
    model = GPT(len(chars))
    n_params = sum(p.numel() for p in model.parameters())
    print("model: %d layers, %d heads, %d-dim embeddings, %d parameters" % (LAYERS, HEADS, EMBED, n_params))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    step_fn = torch.compile(train_step) if args.compile else train_step

    start = last = time.time()
    step = 0
    while step < args.steps and time.time() - start < args.seconds:
        step += 1
        ix = torch.randint(0, len(data) - BLOCK - 1, (BATCH,))
        xb = torch.stack([data[i:i + BLOCK] for i in ix.tolist()])
        yb = torch.stack([data[i + 1:i + 1 + BLOCK] for i in ix.tolist()])
        loss = step_fn(model, opt, xb, yb)
        now = time.time()
        if step == 1 or now - last >= 5.0 or step == args.steps:
            print("step %5d  loss %.3f  %5.1fs" % (step, loss.item(), now - start))
            sys.stdout.flush()
            last = now
    print("trained %d steps in %.1fs, last loss %.3f" % (step, time.time() - start, loss.item()))

    # greedy sampling from a prompt
    model.eval()
    idx = torch.tensor([[stoi[ch] for ch in "This License"]])
    with torch.no_grad():
        for _ in range(120):
            logits = model(idx[:, -BLOCK:])
            nxt = logits[:, -1, :].argmax(dim=-1, keepdim=True)
            idx = torch.cat([idx, nxt], dim=1)
    print("sample:", repr("".join(chars[i] for i in idx[0].tolist())))


main()
