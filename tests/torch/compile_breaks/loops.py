# Graph breaks inside for / while loops under torch.compile: the graph before the break runs,
# the breaking instruction runs, and the loop continues from where it was — its iterator rebuilt
# over the items it has left, the loop's locals restored — in a resume function (which runs
# eagerly when it breaks inside the loop again, as dynamo skips such frames).  Gradients flow
# through what the graph computed.
import torch
import torch.nn as nn


def show(tag, t):
    print(tag, [round(v, 4) for v in t.reshape(-1).tolist()])


@torch.compile
def over_range(x):
    y = x * 2
    for i in range(3):
        y = y + i
        print("range step", i)
        y = y * 0.5
    return y.sum()


@torch.compile
def over_list(x, scales):
    acc = x
    for k, s in enumerate(scales):
        acc = acc * s
        if k == 1:
            print("second scale", s)
            continue
        acc = acc + k
    else:
        print("loop done")
    return acc


@torch.compile
def early_exit(x):
    total = x.sum()
    items = [1.0, 2.0, 3.0, 4.0]
    for v in items:
        total = total + v
        print("added", v)
        if v >= 2.0:
            break
    return total, items


@torch.compile
def nested_loops(x):
    out = x
    for i in range(2):
        for j in zip([10.0, 20.0], "ab"):
            out = out + j[0] * (i + 1)
            print("inner", i, j[1])
    return out


@torch.compile
def while_break(x):
    n = 0
    y = x
    while n < 3:
        y = y.exp() if n == 0 else y - 1
        n += 1
        print("while", n)
    return y


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(3)])
        with torch.no_grad():
            for i, layer in enumerate(self.layers):
                layer.weight.copy_(torch.eye(3) * (i + 1))
                layer.bias.fill_(0.1 * i)

    def forward(self, x):
        for idx, layer in enumerate(self.layers):
            x = torch.relu(layer(x))
            print("layer", idx, "out", [round(v, 4) for v in x.reshape(-1).tolist()])
        return x


x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
r = over_range(x)
print("over_range", round(r.item(), 4))
r.backward()
show("x.grad", x.grad)

x.grad = None
r = over_list(x, [2.0, 3.0, 0.5])
show("over_list", r)
r.sum().backward()
show("x.grad", x.grad)

t, items = early_exit(x)
print("early_exit", round(t.item(), 4), items)

show("nested_loops", nested_loops(x))
show("while_break", while_break(x))

model = Stack()
cm = torch.compile(model)
x.grad = None
out = cm(x)
out.sum().backward()
show("stack", out)
show("x.grad", x.grad)
for i in range(2):
    show("again", cm(x * (i + 1)))
