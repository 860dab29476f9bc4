# Custom ops under torch.compile: a call of torch.ops.<ns>.<name> is one graph node (its output
# metadata from the op's meta function, no kernel run while tracing), run by the "eager" and the
# "ember" backends through libffi, forward and backward.  Every result is checked against the
# same function run eagerly, and the graph and break counts come from torch._dynamo.explain.
import torch
import torch._dynamo
import _oplib

torch.ops.load_library(_oplib.path("EMBER_TEST_OPS"))
ops = torch.ops.test


def f(x, y):
    z = ops.scale_add(x, y, 3.0)
    s, c = ops.sincos(z)
    return (s * c + ops.row_sum(z * 2, keepdim=True)).sum()


def g(x):
    return ops.poly(x.relu(), 3, c=0.5) + ops.double_it(x)


def data():
    x = torch.tensor([[1.0, -2.0, 3.5], [0.25, 4.0, -1.0]], requires_grad=True)
    y = torch.tensor([[0.5, 0.5, 0.5], [1.0, 2.0, 3.0]])
    return x, y


x0, y0 = data()
ref = f(x0, y0)
ref.backward()
for backend in ["eager", "ember"]:
    torch._dynamo.reset()
    cf = torch.compile(f, backend=backend)
    for step in range(2):
        x, y = data()
        out = cf(x, y)
        out.backward()
        print(backend, step, torch.allclose(out, ref), torch.allclose(x.grad, x0.grad, rtol=1e-5),
              out.grad_fn is not None)
    cg = torch.compile(g, backend=backend)
    x = torch.tensor([0.5, -1.0, 2.0])
    print(backend, "no grad", torch.equal(cg(x), g(x)), cg(x).requires_grad)

explanation = torch._dynamo.explain(f)(x0, y0)
print("graphs", explanation.graph_count, "breaks", explanation.graph_break_count, "ops", explanation.op_count)
print([str(op) for op in explanation.ops_per_graph[0]][:3])

# a call the op's schema rejects is a graph break: eager raises PyTorch's error at the user line
def bad(x):
    return ops.scale_add(x, x, "two")


try:
    torch.compile(bad, backend="ember")(x0)
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[0])
