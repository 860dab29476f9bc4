# out= as PyTorch 1.13 honours it, one op per family: the result written into out (which is
# returned itself), out of another shape resized (with resize_output's warning when it had
# elements), the dtype rules of each kernel family, and autograd's refusal.  Regression: Ember took
# out= in torch.linalg.* and ignored it (out kept its old values), and mm/matmul refused an out of
# another shape with NotImplementedError.
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # the oracle runs a script without its folder on the path
from _out_show import show, single  # noqa: E402

A = torch.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])
B = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
x = torch.tensor([1.5, -2.25, 3.75])
xs = torch.tensor([[0.5, 2.0, -1.0], [3.0, -0.5, 1.5]])


def pointwise():
    single("add same", lambda o: torch.add(x, x, out=o), torch.zeros(3))
    single("add resize", lambda o: torch.add(x, 1, alpha=2, out=o), torch.zeros(5))
    single("mul empty", lambda o: torch.mul(xs, 2.0, out=o), torch.empty(0))
    single("exp double", lambda o: torch.exp(x, out=o), torch.zeros(3, dtype=torch.float64))
    single("exp long", lambda o: torch.exp(x, out=o), torch.zeros(3, dtype=torch.long))
    single("neg long", lambda o: torch.neg(x, out=o), torch.zeros(3, dtype=torch.long))
    single("gt float", lambda o: torch.gt(x, 0, out=o), torch.zeros(3))
    single("clamp view", lambda o: torch.clamp(x, -1, 1, out=o), torch.zeros(5)[1:4])
    # out aliasing an input: the result is computed first
    y = x.clone()
    single("add aliased", lambda o: torch.add(o, o, out=o), y)
    # the transposed out keeps its layout
    single("add transposed", lambda o: torch.add(xs.t(), 1, out=o), torch.zeros(2, 3).t())


def reductions():
    single("sum dim", lambda o: torch.sum(xs, 1, out=o), torch.zeros(2))
    single("sum long", lambda o: torch.sum(xs, 1, out=o), torch.zeros(2, dtype=torch.long))
    single("sum keepdim resize", lambda o: torch.sum(xs, 0, keepdim=True, out=o), torch.zeros(3))
    single("mean dim", lambda o: torch.mean(xs, dim=0, out=o), torch.empty(0))
    single("mean long", lambda o: torch.mean(xs, 0, out=o), torch.zeros(3, dtype=torch.long))
    single("cumsum", lambda o: torch.cumsum(xs, 1, out=o), torch.zeros(1, 1))
    single("cumsum long", lambda o: torch.cumsum(x, 0, out=o), torch.zeros(3, dtype=torch.long))
    single("max other", lambda o: torch.max(xs, xs.flip(0), out=o), torch.zeros(2, 3))


def linalg():
    # torch.linalg took out= and ignored it: out kept its old values
    single("cholesky same", lambda o: torch.linalg.cholesky(A, out=o), torch.full((3, 3), 7.0))
    single("cholesky empty", lambda o: torch.linalg.cholesky(A, out=o), torch.empty(0))
    single("cholesky resize", lambda o: torch.linalg.cholesky(A, out=o), torch.zeros(2, 2))
    single("cholesky double", lambda o: torch.linalg.cholesky(A, out=o), torch.zeros(3, 3, dtype=torch.float64))
    single("solve", lambda o: torch.linalg.solve(A, B, out=o), torch.zeros(3, 2))
    single("solve resize", lambda o: torch.linalg.solve(A, B, out=o), torch.zeros(6))
    single("inv", lambda o: torch.linalg.inv(A, out=o), torch.zeros(3, 3))
    single("inverse empty", lambda o: torch.inverse(A, out=o), torch.empty(0))
    single("inv long", lambda o: torch.linalg.inv(A, out=o), torch.zeros(3, 3, dtype=torch.long))
    single("det", lambda o: torch.linalg.det(A, out=o), torch.zeros(()))
    single("det resize", lambda o: torch.linalg.det(A, out=o), torch.zeros(2))
    q, r = torch.zeros(3, 3), torch.empty(0)
    res = show("qr", lambda: torch.linalg.qr(A, out=(q, r)))
    print("qr is outs:", res[0] is q, res[1] is r, "stride:", q.stride(), r.stride())
    print(torch.allclose(q @ r, A, atol=1e-5), torch.allclose(torch.linalg.qr(A).Q, q))
    print(r)
    show("qr tensor out", lambda: torch.linalg.qr(A, out=torch.zeros(3, 3)))
    show("qr short tuple", lambda: torch.linalg.qr(A, out=(q,)))
    sign, logabs = torch.zeros(()), torch.zeros(())
    res = show("slogdet", lambda: torch.linalg.slogdet(A, out=(sign, logabs)))
    print("slogdet is outs:", res[0] is sign, res[1] is logabs, sign, logabs)


def products():
    single("mm resize", lambda o: torch.mm(A, B, out=o), torch.zeros(2, 2))
    single("mm empty", lambda o: torch.mm(A, B, out=o), torch.empty(0))
    single("matmul resize", lambda o: torch.matmul(B.t(), A, out=o), torch.zeros(7))
    single("matmul batched", lambda o: torch.matmul(A.expand(2, 3, 3), B, out=o), torch.empty(0))
    single("linalg.matmul", lambda o: torch.linalg.matmul(A, B, out=o), torch.zeros(3, 2))
    single("mv empty", lambda o: torch.mv(A, x, out=o), torch.empty(0))
    single("dot resize", lambda o: torch.dot(x, x, out=o), torch.zeros(2))
    single("bmm", lambda o: torch.bmm(A[None], B[None], out=o), torch.empty(0))
    single("mm long", lambda o: torch.mm(A, B, out=o), torch.zeros(3, 2, dtype=torch.long))
    single("dot long", lambda o: torch.dot(x, x, out=o), torch.zeros((), dtype=torch.long))


def tuples():
    v, i = torch.zeros(1), torch.empty(0, dtype=torch.long)
    res = show("sort", lambda: torch.sort(x, descending=True, out=(v, i)))
    print("sort is outs:", res[0] is v, res[1] is i, res.values is v, v, i)
    v, i = torch.zeros(2), torch.zeros(2, dtype=torch.long)
    res = show("topk", lambda: torch.topk(xs, 2, dim=1, out=[v, i]))
    print("topk is outs:", res[0] is v, res[1] is i, v, i)
    v, i = torch.zeros(3), torch.zeros(3, dtype=torch.long)
    res = show("max dim", lambda: torch.max(xs, 0, out=(v, i)))
    print("max is outs:", res[0] is v, res[1] is i, v, i)
    show("sort float indices", lambda: torch.sort(x, out=(torch.zeros(3), torch.zeros(3))))
    show("sort long values", lambda: torch.sort(x, out=(torch.zeros(3, dtype=torch.long), torch.zeros(3, dtype=torch.long))))


def grads():
    g = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Ag = A.clone().requires_grad_()
    show("add grad", lambda: torch.add(g, 1, out=torch.zeros(3)))
    show("add out grad", lambda: torch.add(x, 1, out=torch.zeros(3, requires_grad=True)))
    show("sum grad", lambda: torch.sum(g, 0, out=torch.zeros(())))
    show("cholesky grad", lambda: torch.linalg.cholesky(Ag, out=torch.zeros(3, 3)))
    show("solve grad", lambda: torch.linalg.solve(Ag, B, out=torch.zeros(3, 2)))
    show("det grad", lambda: torch.linalg.det(Ag, out=torch.zeros(())))
    show("matmul grad", lambda: torch.matmul(Ag, B, out=torch.zeros(3, 2)))
    show("sort grad", lambda: torch.sort(g, out=(torch.zeros(3), torch.zeros(3, dtype=torch.long))))
    show("eq grad", lambda: print(torch.eq(g, 2.0, out=torch.zeros(3, dtype=torch.bool))))
    with torch.no_grad():
        o = torch.zeros(3)
        r = show("add no_grad", lambda: torch.add(g, 1, out=o))
        print("no_grad is out:", r is o, o, o.requires_grad)


def refused():
    show("relu", lambda: torch.relu(x, out=torch.zeros(3)))
    show("clone", lambda: torch.clone(x, out=torch.zeros(3)))
    show("method", lambda: x.add(1, out=torch.zeros(3)))


def creation():
    o = torch.zeros(5, dtype=torch.long)
    single("zeros long", lambda o: torch.zeros(2, 2, out=o), o)
    single("arange", lambda o: torch.arange(0, 4, out=o), torch.zeros(2))
    single("eye", lambda o: torch.eye(2, out=o), torch.zeros(7))
    # logspace took out= in **kwargs and dropped it
    single("logspace long", lambda o: torch.logspace(0, 2, 3, out=o), torch.zeros(2, dtype=torch.long))


def compiled_use(a, o):
    # a graph break at the out= call; the code after it reads the written out
    t = a * 2
    torch.add(t, 1, out=o)
    return o.sum() + t.sum()


def compiled_linalg(a, o):
    # the Python-level torch.linalg.inv with out=: its result must reach o under compile too
    torch.linalg.inv(a, out=o)
    return o @ a


pointwise()
reductions()
linalg()
products()
tuples()
grads()
refused()
creation()
o = torch.zeros(3)
print("compiled_use", compiled_use(x, o), o)
o = torch.zeros(1)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print("compiled_use resize", compiled_use(x, o), o, len(w))
o = torch.full((3, 3), 9.0)
print("compiled_linalg", torch.allclose(compiled_linalg(A, o), torch.eye(3), atol=1e-5), o)
