# A training loop with tqdm's progress bar (the Debian package python3-tqdm, pure Python), and a
# config read with yaml's pure-Python loader: third-party packages of the system's CPython, which
# Ember imports with --system-site-packages. The bar is written to stdout with a fixed format so
# the output is deterministic (no rates or times).
import sys

import torch
import tqdm
import yaml

config = yaml.safe_load("""
model:
  hidden: 8
  activation: tanh
train:
  steps: 12
  lr: 0.1
seed: 0
""")
print("config", config)

torch.manual_seed(config["seed"])
x = torch.linspace(-1.0, 1.0, 16).reshape(16, 1)
y = torch.sin(3.0 * x)
model = torch.nn.Sequential(torch.nn.Linear(1, config["model"]["hidden"]), torch.nn.Tanh(),
                            torch.nn.Linear(config["model"]["hidden"], 1))
opt = torch.optim.SGD(model.parameters(), lr=config["train"]["lr"])

bar = tqdm.tqdm(range(config["train"]["steps"]), file=sys.stdout, mininterval=0, ascii=True,
                bar_format="{l_bar}{bar:20}| {n_fmt}/{total_fmt} {postfix}")
for step in bar:
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    bar.set_postfix(loss="%.4f" % loss.item())
bar.close()
print("final loss %.4f" % loss.item())
