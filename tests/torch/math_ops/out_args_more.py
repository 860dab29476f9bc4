# out= on the torch functions that refused it with a TypeError before (reductions, indexing,
# products, pointwise composites, torch.special's names, the (values, indices) ops): the result
# written into out and out itself returned, resize_output's warning for an out of another shape,
# each kernel's dtype rule and its own wording of the dtype error, autograd's refusal, and tuple
# outs whose index tensor must be Long.
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # the oracle runs a script without its folder on the path
from _out_show import show, single  # noqa: E402

x = torch.tensor([[0.5, 2.0, -1.0], [3.0, -0.5, 1.5]])
v = torch.tensor([1.5, -2.25, 3.75])


# name: (call with out and the input, the input, dtypes of out the kernel refuses)
F64, I64, BOOL = torch.float64, torch.long, torch.bool
ops = {
    "amax": (lambda o, a: torch.amax(a, 1, out=o), x, [F64, I64]),
    "amin": (lambda o, a: torch.amin(a, 1, out=o), x, [I64]),
    "argmax": (lambda o, a: torch.argmax(a, 1, out=o), x, []),
    "argmin": (lambda o, a: torch.argmin(a, dim=0, keepdim=True, out=o), x, []),
    "var": (lambda o, a: torch.var(a, 1, out=o), x, [I64]),
    "std": (lambda o, a: torch.std(a, 1, unbiased=False, out=o), x, [BOOL]),
    "logsumexp": (lambda o, a: torch.logsumexp(a, 1, out=o), x, [I64]),
    "nansum": (lambda o, a: torch.nansum(a, 1, out=o), x, [I64]),
    "nanmean": (lambda o, a: torch.nanmean(a, 0, out=o), x, [I64]),
    "quantile": (lambda o, a: torch.quantile(a, 0.25, 1, out=o), x, [F64]),
    "nanquantile": (lambda o, a: torch.nanquantile(a, 0.75, 0, out=o), x, [F64]),
    "index_select": (lambda o, a: torch.index_select(a, 1, torch.tensor([2, 0]), out=o), x, [F64]),
    "masked_select": (lambda o, a: torch.masked_select(a, a > 0, out=o), x, [I64]),
    "take": (lambda o, a: torch.take(a, torch.tensor([4, 0]), out=o), x, [F64]),
    "take_along_dim": (lambda o, a: torch.take_along_dim(a, torch.tensor([[2], [0]]), 1, out=o), x, [F64]),
    "index_copy": (lambda o, a: torch.index_copy(a, 1, torch.tensor([2, 0]), a[:, :2] * 10, out=o), x, [I64]),
    "scatter": (lambda o, a: torch.scatter(a, 1, torch.tensor([[2], [0]]), 9.0, out=o), x, [F64]),
    "nonzero": (lambda o, a: torch.nonzero(a > 0, out=o), x, [torch.float32]),
    "diag": (lambda o, a: torch.diag(a, out=o), v, [F64]),
    "histc": (lambda o, a: torch.histc(a, 4, -3, 4, out=o), v, [F64]),
    "cross": (lambda o, a: torch.cross(a, a.flip(0), dim=1, out=o), x, [F64]),
    "linalg.cross": (lambda o, a: torch.linalg.cross(a, a.flip(0), out=o), x, [I64]),
    "kron": (lambda o, a: torch.kron(a, a[:1], out=o), x, [I64]),
    "outer": (lambda o, a: torch.outer(a, a, out=o), v, [BOOL]),
    "baddbmm": (lambda o, a: torch.baddbmm(torch.ones(1, 2, 2), a[None], a.t()[None], beta=0.5, out=o), x, [F64]),
    "addmv": (lambda o, a: torch.addmv(torch.ones(2), a, torch.ones(3), alpha=2, out=o), x, [F64]),
    "addr": (lambda o, a: torch.addr(torch.ones(3, 3), a, a, out=o), v, [I64]),
    "matrix_power": (lambda o, a: torch.linalg.matrix_power(a, 3, out=o), torch.tensor([[1.0, 1.0], [0.5, 2.0]]), [F64]),
    "multi_dot": (lambda o, a: torch.linalg.multi_dot([a, a.t(), a], out=o), x, [F64]),
    "lerp": (lambda o, a: torch.lerp(a, a * 2, 0.25, out=o), v, [I64]),
    "addcmul": (lambda o, a: torch.addcmul(a, a, a, value=0.5, out=o), v, [I64]),
    "addcdiv": (lambda o, a: torch.addcdiv(a, a, a + 4, value=2, out=o), v, [BOOL]),
    "nan_to_num": (lambda o, a: torch.nan_to_num(a / 0, posinf=9.0, out=o), v, [F64]),
    "deg2rad": (lambda o, a: torch.deg2rad(a, out=o), v, [I64]),
    "rad2deg": (lambda o, a: torch.rad2deg(a, out=o), v, [I64]),
    "diff": (lambda o, a: torch.diff(a, out=o), v, [I64]),
    "ldexp": (lambda o, a: torch.ldexp(a, torch.tensor(2), out=o), v, [I64]),
    "float_power": (lambda o, a: torch.float_power(a, 2, out=o), v, [torch.float32]),
    "heaviside": (lambda o, a: torch.heaviside(a, torch.tensor(0.5), out=o), v, [F64]),
    "signbit": (lambda o, a: torch.signbit(a, out=o), v, [torch.float32]),
    "square": (lambda o, a: torch.square(a, out=o), v, [F64]),
    "renorm": (lambda o, a: torch.renorm(a, 2, 0, 1.0, out=o), x, [F64]),
    "polygamma": (lambda o, a: torch.polygamma(1, a, out=o), v.abs(), [I64]),
    "column_stack": (lambda o, a: torch.column_stack((a, a), out=o), v, [I64]),
    "hstack": (lambda o, a: torch.hstack((a, a), out=o), v, [BOOL]),
    "vstack": (lambda o, a: torch.vstack((a, a), out=o), v, [I64]),
    "row_stack": (lambda o, a: torch.row_stack((a, a), out=o), v, [I64]),
    "dstack": (lambda o, a: torch.dstack((a, a), out=o), v, [I64]),
    "special.expit": (lambda o, a: torch.special.expit(a, out=o), v, [I64]),
    "special.erf": (lambda o, a: torch.special.erf(a, out=o), v, [I64]),
    "special.gammaln": (lambda o, a: torch.special.gammaln(a, out=o), v, [I64]),
    "special.psi": (lambda o, a: torch.special.psi(a, out=o), v, [I64]),
    "special.round": (lambda o, a: torch.special.round(a, out=o), v, [F64]),
    "special.polygamma": (lambda o, a: torch.special.polygamma(2, a, out=o), v.abs(), [BOOL]),
}

for name, (f, a, bad) in ops.items():
    r = f(None, a)   # out=None: no out
    print("==", name, tuple(r.shape), r.dtype)
    single(name + " same shape", lambda o: f(o, a), torch.full(r.shape, 7.0, dtype=r.dtype))
    single(name + " empty", lambda o: f(o, a), torch.empty(0, dtype=r.dtype))
    single(name + " resized", lambda o: f(o, a), torch.zeros(7, dtype=r.dtype))
    for dt in bad:
        show(name + " " + str(dt), lambda: f(torch.empty(r.shape, dtype=dt), a))
    if r.dtype.is_floating_point and name not in ("histc", "heaviside", "nanmean", "quantile", "nanquantile"):
        show(name + " grad", lambda: f(torch.empty(r.shape, dtype=r.dtype), a.clone().requires_grad_()))

# (values, indices): a tuple of outs, the index tensor Long
tuple_ops = {
    "cummax": lambda o, a: torch.cummax(a, 1, out=o),
    "cummin": lambda o, a: torch.cummin(a, 0, out=o),
    "kthvalue": lambda o, a: torch.kthvalue(a, 2, 1, out=o),
    "median": lambda o, a: torch.median(a, 1, out=o),
    "nanmedian": lambda o, a: torch.nanmedian(a, 0, keepdim=True, out=o),
    "max": lambda o, a: torch.max(a, 1, out=o),
    "min": lambda o, a: torch.min(a, dim=0, out=o),
    "aminmax": lambda o, a: torch.aminmax(a, dim=1, out=o),
}
for name, f in tuple_ops.items():
    r = f(None, x)
    print("==", name, type(r).__name__, [tuple(t.shape) for t in r], [t.dtype for t in r])
    # resize_output's warning for an out with elements (kthvalue and median resize through keepdim)
    n = 0 if name in ("kthvalue", "median", "nanmedian", "aminmax") else 4
    outs = (torch.empty(0, dtype=r[0].dtype), torch.full((n,), 5, dtype=r[1].dtype))
    res = show(name, lambda: f(outs, x))
    if res is not None:
        print(name, "are outs:", res[0] is outs[0], res[1] is outs[1])
        print(outs[0], outs[1])
    lst = [torch.empty(0, dtype=r[0].dtype), torch.empty(0, dtype=r[1].dtype)]
    res = show(name + " list", lambda: f(lst, x))
    if res is not None:
        print(name, "list are outs:", res[0] is lst[0], res[1] is lst[1])
    if name in ("cummax", "cummin", "max", "min"):
        show(name + " int32 indices", lambda: f((torch.empty(0), torch.empty(0, dtype=torch.int32)), x))
    if name in ("cummax", "max"):
        show(name + " double values", lambda: f((torch.empty(0, dtype=F64), torch.empty(0, dtype=I64)), x))
    show(name + " grad", lambda: f((torch.empty(0), torch.empty(0, dtype=r[1].dtype)), x.clone().requires_grad_()))
    show(name + " one out", lambda: f((torch.empty(0),), x))
