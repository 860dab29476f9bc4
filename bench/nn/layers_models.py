"""The issue-17 model benchmarks, one script run unchanged under Ember and PyTorch: ResNet-18
forward+backward at batch 8 on 64x64 inputs, a 2-layer LSTM language-model training step (hidden
256, seq 35, batch 20), and a TransformerEncoder training step (4 layers, d_model 128, seq 64,
batch 16).  Prints "name_ms milliseconds" (CPU time) and "name_wall_ms milliseconds" (wall clock)
lines, each the best of a few rounds.
usage: layers_models.py [which...]   (resnet18 lstm transformer; default all)"""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

if hasattr(torch, "set_num_threads"):
    torch.set_num_threads(1)
torch.manual_seed(0)


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        idt = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + idt)


class ResNet18(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        layers, inp = [], 64
        for planes, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers.append(nn.Sequential(BasicBlock(inp, planes, stride), BasicBlock(planes, planes)))
            inp = planes
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class LSTMLM(nn.Module):
    def __init__(self, ntoken=1000, ninp=256, nhid=256, nlayers=2):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, x):
        out, _ = self.rnn(self.encoder(x))
        return self.decoder(out)


def timed(fn, warm, iters, reps=3):
    """best of reps rounds: (CPU ms per call, wall ms per call), each the minimum over the rounds"""
    for _ in range(warm):
        fn()
    best = wall = None
    for _ in range(reps):
        t0, w0 = time.process_time(), time.perf_counter()
        for _ in range(iters):
            fn()
        t = (time.process_time() - t0) / iters * 1e3
        w = (time.perf_counter() - w0) / iters * 1e3
        best = t if best is None or t < best else best
        wall = w if wall is None or w < wall else wall
    return best, wall


def resnet18():
    model = ResNet18()
    x = torch.rand(8, 3, 64, 64)

    def step():
        model.zero_grad()
        model(x).sum().backward()
    return timed(step, 1, 2)


def lstm():
    model = LSTMLM()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randint(0, 1000, (35, 20))
    y = torch.randint(0, 1000, (35 * 20,))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, 1000), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        opt.step()
    return timed(step, 1, 2)


def transformer():
    layer = nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0)
    model = nn.TransformerEncoder(layer, 4)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.rand(64, 16, 128)

    def step():
        opt.zero_grad()
        (model(x) ** 2).mean().backward()
        opt.step()
    return timed(step, 1, 3)


which = sys.argv[1:] or ["resnet18", "lstm", "transformer"]
for name in which:
    cpu, wall = {"resnet18": resnet18, "lstm": lstm, "transformer": transformer}[name]()
    print(name + "_ms", round(cpu, 2))
    print(name + "_wall_ms", round(wall, 2))
