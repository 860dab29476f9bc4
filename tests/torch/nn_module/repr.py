# Module __repr__: the module tree with extra_repr, nested indentation, named Sequential entries,
# ModuleDict and custom extra_repr with several lines.
import collections
import torch
import torch.nn as nn


class Custom(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(3, 4, bias=False)

    def extra_repr(self):
        return "first line\nsecond line"


class OneLine(nn.Module):
    def extra_repr(self):
        return "k=3"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4, padding_idx=0)
        self.body = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Dropout(0.1), nn.Linear(8, 4))
        self.norm = nn.LayerNorm(4)
        self.heads = nn.ModuleDict({"cls": nn.Linear(4, 2), "reg": nn.Linear(4, 1)})
        self.custom = Custom()
        self.one = OneLine()
        self.empty = nn.Module()
        self.act = nn.ReLU(inplace=True)
        self.soft = nn.Softmax(dim=-1)
        self.loss = nn.CrossEntropyLoss()


print(Net())
print(nn.Sequential(collections.OrderedDict([("fc", nn.Linear(1, 1)), ("act", nn.Sigmoid())])))
print(nn.Module())
print(OneLine())
print(Custom())
print(repr(nn.Identity()), str(nn.Tanh()), nn.MSELoss(), nn.NLLLoss())
print(nn.ModuleList([nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1)]))
print(nn.Bilinear(2, 3, 4))
