# Graph and break counts the tracer must produce (torch._dynamo.explain), one case per kind of
# graph break: a print, data-dependent control flow, .item(), an unsupported builtin; and a
# function that compiles to one graph with no break.  Ember-specific counts: recorded with
# `tests/record_golden.sh --ember` after checking each against the source by hand.
import torch
import torch._dynamo


def one_graph(x, w):
    h = x @ w
    return (h.relu() * 2).sum()


def with_print(x):
    y = x + 1
    print("between graphs")
    return y * 3


def branch(x):
    y = x * 2
    if y.sum() > 0:
        return y + 1
    return y - 1


def item(x):
    s = x.sum().item()
    return x * s


def in_no_grad(x):
    y = x * 2
    with torch.no_grad():
        z = y + 1
        print("inside no_grad")
        w = z * 3
    return w + y


def in_loop(x):
    for i in range(2):
        x = x + 1
        print("in the loop")
    return x


def report(name, e):
    print(name, "graphs", e.graph_count, "breaks", e.graph_break_count, "ops", e.op_count)
    for r in e.break_reasons:
        print("  reason:", r.reason)


x = torch.tensor([1.0, -2.0, 3.0])
w = torch.ones(3, 2)
report("one_graph", torch._dynamo.explain(one_graph)(x.reshape(1, 3), w))
report("with_print", torch._dynamo.explain(with_print)(x))
report("branch", torch._dynamo.explain(branch)(x))
report("item", torch._dynamo.explain(item)(x))
# resumes inside the no_grad block: a graph before the break and one in the resume function
report("in_no_grad", torch._dynamo.explain(in_no_grad)(x))
# a break inside a loop: a graph before it (x + 1 of the first pass), then a resume function
# that continues the loop; it breaks at once on the rebuilt iterator (next() on an object) and
# runs eagerly, as dynamo skips a frame that breaks inside a loop
report("in_loop", torch._dynamo.explain(in_loop)(x))
