# Models built from nn layers and nn.functional compile to one graph with no break: the
# functional wrappers' __torch_function__ test (torch._C._has_torch_function_unary) folds to
# False on tensors, as dynamo folds it.  Ember-specific counts: recorded with
# `tests/record_golden.sh --ember` after checking each against the source by hand.
import torch
import torch._dynamo
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.GELU(), nn.LayerNorm(8), nn.Linear(8, 3))
mlp.eval()
head = nn.Sequential(nn.Dropout(0.5), nn.Softmax(dim=-1))
head.eval()


def model(x):
    return head(mlp(x))


def functional(x):
    a = F.relu(x)
    b = F.leaky_relu(x, 0.1)
    c = F.silu(x)
    d = F.softmax(x, dim=-1)
    e = F.log_softmax(x, dim=-1)
    f = F.dropout(x, 0.5, training=False)
    return a + b + c + d + e + f


def report(name, e):
    print(name, "graphs", e.graph_count, "breaks", e.graph_break_count, "ops", e.op_count)
    for r in e.break_reasons:
        print("  reason:", r.reason)


x = torch.randn(2, 4)
report("model", torch._dynamo.explain(model)(x))
report("functional", torch._dynamo.explain(functional)(x))
eager = model(x)
compiled = torch.compile(model, backend="ember")(x)
print("compiled equals eager", torch.allclose(eager, compiled), list(compiled.shape))

# module.training is guarded: train() after compiling recompiles, and dropout then applies
cm = torch.compile(model, backend="eager")
ev = cm(x)
head.train()
tr = cm(x)
head.eval()
print("eval output equals eager", torch.allclose(ev, eager), "train output differs", not torch.allclose(tr, eager))
