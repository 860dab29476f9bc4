# Editing graphs: inserting nodes after/before others, replacing uses, erasing, dead code
# elimination, recompiling a GraphModule; a Graph built by hand run through a GraphModule made
# from a dict of attributes; copying a graph; the Interpreter running a graph node by node.
import operator

import torch
import torch.nn as nn
import torch.fx


def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        y = torch.tanh(self.lin(x))
        return y + x


m = M()
with torch.no_grad():
    m.lin.weight.copy_(torch.arange(9, dtype=torch.float32).reshape(3, 3) * 0.1 - 0.4)
    m.lin.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
x = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])

gm = torch.fx.symbolic_trace(m)
for n in gm.graph.nodes:
    if n.op == "call_function" and n.target is torch.tanh:
        with gm.graph.inserting_after(n):
            new = gm.graph.call_function(torch.relu, (n,))
        n.replace_all_uses_with(new)
        new.args = (n,)
        print(n.name, list(n.users), new.name, new.args, list(new.users))
gm.graph.lint()
gm.recompile()
print(gm.code)
print(r(gm(x)), r(torch.relu(torch.tanh(m.lin(x))) + x))

out = [n for n in gm.graph.nodes if n.op == "output"][0]
with gm.graph.inserting_before(out):
    dead = gm.graph.call_method("neg", (list(gm.graph.nodes)[0],))
    dead2 = gm.graph.call_function(operator.mul, (dead, 2.0))
print(dead.name, dead2.name, dead.next is dead2, dead2.prev is dead)
print(gm.graph.eliminate_dead_code(), gm.graph.eliminate_dead_code())
gm.recompile()
print(len(gm.graph.nodes), [n.name for n in gm.graph.nodes])

# a graph built by hand
g = torch.fx.Graph()
a = g.placeholder("a")
b = g.placeholder("b", default_value=2.0)
w = g.get_attr("weight")
mm = g.call_function(torch.matmul, (a, w))
s = g.call_method("sum", (mm,), {"dim": 1})
t = g.call_function(operator.mul, (s, b))
g.output({"sum": s, "scaled": (t, [a])})
print(g)
hand = torch.fx.GraphModule({"weight": torch.tensor([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])}, g)
print(hand.code)
res = hand(x)
print(r(res["sum"]), r(res["scaled"][0]), res["scaled"][1][0] is x)
print(r(hand(x, 0.5)["scaled"][0]))
print([n for n, _ in hand.named_buffers()])

# copying
g2 = torch.fx.Graph()
env = {}
result = g2.graph_copy(g, env)
g2.output(result)
print(len(g2.nodes), [env[n].name for n in g.nodes if n in env])
node = g2.node_copy(mm, lambda n: env[n])
print(node.name, node.op, node.target is torch.matmul)

# the Interpreter
print(r(torch.fx.Interpreter(gm).run(x)))


class CountingInterpreter(torch.fx.Interpreter):
    def __init__(self, module):
        super().__init__(module)
        self.ops = []

    def run_node(self, n):
        self.ops.append(n.op)
        return super().run_node(n)


ci = CountingInterpreter(gm)
print(r(ci.run(x)), ci.ops)
