# Custom ops from a shared library (tests/ffi/customop/test_ops.c) in eager mode: results are
# checked against the same computation in plain torch ops, for one and several outputs, scalar
# arguments given by position, keyword and default, int64 outputs, broadcasting shapes computed
# by the meta function, and the op objects' names and schemas.
import math
import torch
import _oplib

torch.ops.load_library(_oplib.path("EMBER_TEST_OPS"))
print(torch.ops.test.scale_add, torch.ops.test.scale_add.default, str(torch.ops.test.sincos))
print(torch.ops.test.scale_add._schema)
print(torch.ops.test.scale_add is torch.ops.test.scale_add, torch.ops.test)

x = torch.tensor([[1.0, -2.0, 3.5], [0.25, 4.0, -1.0]])
y = torch.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
z = torch.ops.test.scale_add(x, y, 2.0)
print(z)
print(torch.equal(z, 2.0 * x + y), z.dtype, z.shape, z.requires_grad, z.grad_fn)
print(torch.equal(torch.ops.test.scale_add(x, y), x + y))
print(torch.equal(torch.ops.test.scale_add(x, y=y, alpha=-1), y - x))
print(torch.equal(torch.ops.test.scale_add.default(y, x, 0.5), 0.5 * y + x))

s, c = torch.ops.test.sincos(x)
print(torch.allclose(s, torch.sin(x)), torch.allclose(c, torch.cos(x)))
print(s)

r = torch.ops.test.row_sum(x)
print(r, r.shape, torch.allclose(r, x.sum(-1)))
rk = torch.ops.test.row_sum(x, keepdim=True)
print(rk.shape, torch.allclose(rk, x.sum(-1, keepdim=True)))
print(torch.ops.test.row_sum(torch.ones(2, 3, 4)).shape)

p = torch.ops.test.poly(x, 3, c=0.5)
print(torch.allclose(p, 0.5 * x ** 3), torch.ops.test.poly(x, 0).tolist())

n = torch.ops.test.count_above(x, 1.0)
print(n, n.dtype, n.shape, n.item(), int((x > 1.0).sum()))

d = torch.ops.test.double_it(x[:, 1:])     # a non-contiguous input is made contiguous
print(d, torch.equal(d, 2 * x[:, 1:]))

t = x.t()
print(torch.equal(torch.ops.test.scale_add(t, t, 1.0), 2 * t))
with torch.no_grad():
    w = torch.ops.test.scale_add(x, y)
print(w.requires_grad)
