"""A small ResNet trained on synthetic images: 12x12 RGB pictures of one of four patterns
(horizontal stripes, vertical stripes, a centred square, a checkerboard) with noise, classified by
residual blocks of 3x3 convolutions, batch norm and ReLU, a stride-2 stage, global average
pooling and a linear head.

    ember examples/resnet/train_resnet.py [--steps N] [--compile]
    python3 examples/resnet/train_resnet.py ...     # the same script on CPython + PyTorch

With --compile the model runs under torch.compile. Prints the loss every few steps, then the
accuracy on a fresh batch in eval mode (batch norm's running statistics)."""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40
COMPILE = False
argv = sys.argv[1:]
while argv:
    if argv[0] == "--compile":
        COMPILE = True
        argv = argv[1:]
    elif argv[0] == "--steps" and len(argv) > 1:
        STEPS = int(argv[1])
        argv = argv[2:]
    else:
        sys.exit("usage: train_resnet.py [--steps N] [--compile]")

SIZE = 12
CLASSES = 4


def make_batch(n):
    """n noisy images of random classes, and their labels"""
    labels = torch.randint(0, CLASSES, (n,))
    r = torch.arange(SIZE).reshape(SIZE, 1).expand(SIZE, SIZE)
    c = torch.arange(SIZE).reshape(1, SIZE).expand(SIZE, SIZE)
    patterns = torch.stack([
        (r // 2 % 2).float(),                                             # horizontal stripes
        (c // 2 % 2).float(),                                             # vertical stripes
        ((r >= 3) & (r < 9) & (c >= 3) & (c < 9)).float(),                # a centred square
        ((r // 3 + c // 3) % 2).float(),                                  # a checkerboard
    ])
    images = patterns[labels].reshape(n, 1, SIZE, SIZE).expand(n, 3, SIZE, SIZE)
    images = images + 0.3 * torch.randn(n, 3, SIZE, SIZE)
    return images, labels


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.layer1 = BasicBlock(8, 8, 1)
        self.layer2 = BasicBlock(8, 16, 2)
        self.head = nn.Linear(16, CLASSES)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def main():
    torch.manual_seed(0)
    model = ResNet()
    print("ResNet: %d parameters" % sum(p.numel() for p in model.parameters()))
    run = torch.compile(model) if COMPILE else model
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    start = time.time()
    for step in range(1, STEPS + 1):
        images, labels = make_batch(16)
        loss = F.cross_entropy(run(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step == 1 or step % 10 == 0 or step == STEPS:
            print("step %3d  loss %.3f  %.1fs" % (step, loss.item(), time.time() - start))
    model.eval()
    with torch.no_grad():
        images, labels = make_batch(128)
        accuracy = (run(images).argmax(dim=1) == labels).float().mean().item()
    print("accuracy on 128 new images: %.1f%%" % (100 * accuracy))


main()
