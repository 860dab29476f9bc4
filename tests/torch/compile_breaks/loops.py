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


def helper(x):
    print("helper breaks")
    return x + 1


@torch.compile
def break_in_callee(x):
    for i in range(2):
        x = helper(x) * 2
    return x


@torch.compile
def long_range(x):
    # more items left than residual code rebuilds: the frame runs eagerly
    for i in range(600):
        x = x + 1
        if i % 200 == 0:
            print("at", i)
    return x


@torch.compile
def grows_while_iterated(x, xs):
    # the loop's list iterator is rebuilt over the list itself: appends after the break still come
    for v in xs:
        x = x * v
        if len(xs) < 4:
            xs.append(v + 1)
        print("grow", v, len(xs))
    return x


@torch.compile
def new_list_grows(x):
    xs = [1.0]
    for v in xs:
        x = x + v
        if len(xs) < 4:
            xs.append(v + 1)
        if v >= 2.0:
            print("new list", v, len(xs))
    return x, xs


@torch.compile
def over_dict(x, d):
    for k in d:
        x = x + d[k]
        print("key", k)
    return x


@torch.compile
def try_in_loop(x):
    for i in range(2):
        try:
            x = x + 1
            print("try", i)
        finally:
            x = x * 2
    return x


@torch.compile
def enumerate_grows(x):
    # no break: enumerate / zip over a list read it item by item while tracing too
    xs = [1.0]
    for i, v in enumerate(xs):
        x = x + v * i
        if len(xs) < 3:
            xs.append(v + 1)
    ys = [1.0, 2.0]
    for a, b in zip(ys, ys):
        x = x + a * b
        if len(ys) < 4:
            ys.append(a + 10)
    return x, xs, ys


@torch.compile
def zip_break(x):
    xs = [1.0, 2.0]
    for i, (a, b) in enumerate(zip(xs, "abcd"), 1):
        x = x * a
        print("zip", i, b)
        if len(xs) < 4:
            xs.append(a + 1)
    return x, xs


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

show("break_in_callee", break_in_callee(x))
show("long_range", long_range(x))
ys = [2.0]
show("grows_while_iterated", grows_while_iterated(x, ys))
print("ys", ys)
r, xs = new_list_grows(x)
show("new_list_grows", r)
print("xs", xs)
show("over_dict", over_dict(x, {"a": 1.0, "b": 2.0}))
show("try_in_loop", try_in_loop(x))
r, xs, ys = enumerate_grows(x)
show("enumerate_grows", r)
print("xs", xs, "ys", ys)
r, xs = zip_break(x)
show("zip_break", r)
print("xs", xs)
