import torch
import torch.nn as nn
import torch.nn.functional as F


def fill(model):
    # deterministic parameters: small dyadic values, so every sum is exact in float32
    with torch.no_grad():
        for i, (name, p) in enumerate(model.named_parameters()):
            n = p.numel()
            p.copy_(((torch.arange(n, dtype=torch.float32) * (3 + i) % 9 - 4) * 0.0625).reshape(p.shape))


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out = out + identity
        return self.relu(out)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(4)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = nn.Sequential(BasicBlock(4, 4))
        self.layer2 = nn.Sequential(BasicBlock(4, 8, 2, nn.Sequential(nn.Conv2d(4, 8, 1, stride=2, bias=False),
                                                                      nn.BatchNorm2d(8))))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


model = TinyResNet()
fill(model)
print(model)
print(list(model.state_dict().keys())[:8])
x = ((torch.arange(2 * 3 * 16 * 16, dtype=torch.float32) % 13 - 6) * 0.125).reshape(2, 3, 16, 16)
target = torch.tensor([1, 3])
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(2):
    opt.zero_grad()
    out = model(x)
    loss = F.cross_entropy(out, target)
    loss.backward()
    print("step", step, "loss %.4f" % loss.item())
    print(" conv1 grad", model.conv1.weight.grad.flatten()[:6])
    print(" fc grad", model.fc.weight.grad.flatten()[:6])
    opt.step()
print("running_mean", model.bn1.running_mean)
print("running_var", model.bn1.running_var)
print("num_batches_tracked", model.bn1.num_batches_tracked)
model.eval()
with torch.no_grad():
    print("eval", model(x))

m = nn.Sequential(
    nn.Conv1d(2, 4, 3, padding=1, padding_mode="reflect"),
    nn.BatchNorm1d(4, momentum=None),
    nn.MaxPool1d(2, return_indices=False),
    nn.Conv1d(4, 4, 3, padding="same", groups=2, bias=False, padding_mode="circular"),
    nn.AvgPool1d(2),
    nn.Flatten(),
    nn.Unflatten(1, (2, 4)),
)
fill(m)
print(m)
y = ((torch.arange(3 * 2 * 8, dtype=torch.float32) % 5 - 2) * 0.25).reshape(3, 2, 8)
for _ in range(2):
    out = m(y)
print(out)
print(m[1].running_mean, m[1].running_var, m[1].num_batches_tracked)
out.sum().backward()
print(m[0].weight.grad.flatten()[:6])

print(nn.Conv2d(3, 8, (3, 5), stride=(2, 1), padding=(1, 2), dilation=2, groups=1, bias=False, padding_mode="replicate"))
print(nn.Conv2d(4, 8, 3, padding="same", groups=4))
print(nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1))
print(nn.ConvTranspose1d(4, 2, 3))
print(nn.AvgPool2d(3, stride=2, padding=1), nn.AvgPool1d(3), nn.AdaptiveAvgPool1d(4), nn.AdaptiveMaxPool2d((2, 3)))
print(nn.BatchNorm1d(5, affine=False, track_running_stats=False), nn.InstanceNorm2d(3, affine=True),
      nn.GroupNorm(2, 4), nn.PixelShuffle(2), nn.Upsample(scale_factor=2, mode="bilinear"), nn.Unfold(2), nn.Fold(4, 2))
ct = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
fill(ct)
print(ct(torch.ones(1, 2, 3, 3), output_size=[6, 6]).shape)
gn = nn.GroupNorm(2, 4)
inn = nn.InstanceNorm1d(4, affine=True, track_running_stats=True)
fill(gn)
fill(inn)
z = ((torch.arange(2 * 4 * 6, dtype=torch.float32) % 7 - 3) * 0.5).reshape(2, 4, 6)
print(gn(z)[0])
print(inn(z)[1])
print(inn.running_mean, inn.running_var)
bn = nn.BatchNorm2d(3)
try:
    bn(torch.ones(2, 3, 4))
except ValueError as e:
    print("ValueError:", e)
try:
    nn.BatchNorm1d(3)(torch.ones(1, 3))
except ValueError as e:
    print("ValueError:", e)
