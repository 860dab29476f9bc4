# Functions and Tensor methods of PyTorch 1.13's namespace that model and data code calls and a
# probe found missing: conversions, broadcasting, shape helpers, the *_scatter ops, comparison
# aliases and in-place forms, the complex-number queries on real tensors, set membership, gcd/lcm,
# products, diagonals, mode, the trapezoid rules and the window functions.
import warnings
import torch

torch.manual_seed(0)
x = torch.randn(3, 4)
a = torch.arange(6.).reshape(2, 3)

# conversions and creation
t = torch.tensor([1., 2.])
print(torch.as_tensor(t) is t, torch.as_tensor(t, dtype=torch.float64).dtype, torch.as_tensor([1, 2]))
print(torch.asarray([[1, 2], [3, 4]]), torch.asarray(t) is t, torch.asarray(t, copy=True) is t)
print(torch.scalar_tensor(3), torch.scalar_tensor(2, dtype=torch.int32))
e = torch.empty_strided((2, 3), (1, 2))
print(e.shape, e.stride())
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print(torch.range(1, 4), torch.range(0, 1, 0.25), torch.range(1, 3, dtype=torch.int64))
    print(len(w), w[0].category.__name__)
print(torch.concatenate([a, a], 1).shape)

# broadcasting and shape
print(torch.broadcast_to(torch.tensor([1, 2, 3]), (2, 3)), torch.tensor([1, 2]).broadcast_to(2, 2).shape)
p, q = torch.broadcast_tensors(torch.ones(2, 1), torch.zeros(3))
print(p.shape, q.shape, q.stride())
print(a.ravel(), torch.ravel(a.t()))
print(torch.tile(torch.tensor([1, 2]), (2, 2)), a.tile(2).shape, a.tile((2, 1, 1)).shape)
print(a.swapdims(0, 1).shape, torch.swapdims(x, 0, 1).is_contiguous())
print(torch.arange(12).unflatten(0, (3, 4)).shape, x.unflatten(1, (2, -1)).shape)
print(torch.fliplr(a), torch.flipud(a), a.fliplr().is_contiguous())
print([s.shape for s in torch.hsplit(torch.arange(12.).reshape(2, 6), 3)], [s.tolist() for s in torch.hsplit(torch.arange(6), [1, 4])])
print([s.shape for s in torch.vsplit(torch.arange(12.).reshape(4, 3), [1, 3])], [s.shape for s in torch.dsplit(torch.zeros(2, 2, 4), 2)])
print([c.shape for c in torch.unsafe_chunk(x, 2, 1)], [c.shape for c in x.unsafe_split(2)], [c.shape for c in torch.unsafe_split_with_sizes(x, [1, 2])])
print(torch.narrow_copy(x, 1, 1, 2).is_contiguous(), x.narrow_copy(0, 1, 1))
print(torch.ones(2, 3, 4).sum_to_size(3, 1), torch.ones(2, 3).sum_to_size((1, 3)))

# scatter into views
print(torch.select_scatter(torch.zeros(2, 3), torch.ones(3), 0, 1))
print(torch.slice_scatter(torch.zeros(4, 4), torch.ones(2, 4), 0, 2, 4, 1), torch.zeros(3, 4).slice_scatter(torch.ones(3, 2), 1, 0, 4, 2))
print(torch.slice_scatter(torch.zeros(4, 2), torch.ones(1, 2), start=2))
try:
    torch.slice_scatter(torch.zeros(4, 4), torch.ones(2, 4), 0, 2)
except RuntimeError as err:
    print("RuntimeError:", err)
print(torch.diagonal_scatter(torch.zeros(3, 3), torch.tensor([1., 2.]), 1))

# clamp forms and aliases
print(torch.clamp_min(x, 0).min(), torch.clamp_max(x, 0).max(), x.clamp_max(0.5).max())
y = x.clone(); y.clamp_min_(0.1); y.clamp_max_(0.6); print(y.min(), y.max())
y = x.clone(); torch.clip_(y, -0.2, 0.2); print(y.abs().max())
print(torch.absolute(torch.tensor([-1, 2])), torch.tensor([-1.5]).absolute_(), torch.positive(x) is x)
print(torch.greater(a, 2), torch.greater_equal(a, 2).sum(), torch.less(a, 2).sum(), torch.less_equal(a, a.t().t()).all(), torch.not_equal(a, 3).sum())
z = a.clone(); z.gt_(2); print(z)
z = a.clone(); z.eq_(torch.tensor([0., 1., 0.])); print(z)
z = a.clone(); z.less_equal_(3); print(z, z.dtype)

# complex-number queries on real tensors
print(torch.is_complex(x), x.is_complex(), x.is_conj(), x.is_neg(), torch.is_signed(x), torch.tensor([1], dtype=torch.uint8).is_signed())
print(torch.is_nonzero(torch.tensor([0.5])), torch.is_nonzero(torch.tensor(0)), torch.is_same_size(x, x.clone()))
try:
    torch.is_nonzero(torch.ones(2))
except RuntimeError as err:
    print("RuntimeError:", err)
print(torch.conj(x) is x, x.resolve_conj() is x, torch.resolve_neg(x) is x, torch.conj_physical(a).equal(a), torch.real(a) is a)

# special values and membership
v = torch.tensor([1., float("inf"), -float("inf"), float("nan")])
print(torch.isposinf(v), torch.isneginf(v), v.isreal(), torch.isposinf(torch.tensor([1, 2])))
print(torch.isin(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3])), torch.isin(torch.arange(5), torch.tensor([1, 4]), invert=True))

# div's rounding modes
ai = torch.tensor([5, -7, 9]); bi = torch.tensor([2, 2, -4])
print(torch.div(ai, 2, rounding_mode="floor"), torch.div(ai, bi, rounding_mode="trunc"), ai.div(bi, rounding_mode="floor"))
print(torch.div(ai.float(), 2, rounding_mode="trunc"), torch.divide(ai, bi), torch.true_divide(ai, bi), torch.floor_divide(ai, bi))
xd = ai.clone(); xd.div_(2, rounding_mode="floor"); print(xd)
print(torch.div(ai, bi, rounding_mode=None))
try:
    torch.div(ai, bi, rounding_mode="round")
except RuntimeError as e:
    print(e)
xf = torch.tensor([7.5, -7.5])
print(torch.div(xf, 2, rounding_mode='floor'), torch.div(torch.tensor([-7, 7]), torch.tensor([2, -2]), rounding_mode='trunc'))

# gcd / lcm
g = torch.tensor([12, -18, 0, 7, 0])
h = torch.tensor([8, 12, 5, 0, 0])
print(torch.gcd(g, h), torch.lcm(g, h), g.gcd(torch.tensor(6)))
try:
    torch.gcd(x, x)
except RuntimeError as err:
    print("RuntimeError:", err)

# products
u, w = torch.randn(3), torch.randn(3)
print(torch.inner(u, w), torch.inner(x, torch.randn(2, 4)).shape, torch.vdot(u, w), u.vdot(w))
try:
    torch.inner(x, torch.randn(3))
except RuntimeError as err:
    print("RuntimeError:", err)
m1, m2, m3 = torch.randn(2, 3), torch.randn(3, 4), torch.randn(4, 2)
with warnings.catch_warnings(record=True) as wl:
    warnings.simplefilter("always")
    print(torch.chain_matmul(m1, m2, m3))
    print(len(wl))
b1, b2 = torch.randn(4, 2, 3), torch.randn(4, 3, 5)
base = torch.randn(2, 5)
print(torch.addbmm(base, b1, b2), torch.addbmm(base, b1, b2, beta=0.5, alpha=2).sum())
print(base.addbmm(b1, b2).equal(torch.addbmm(base, b1, b2)))

# diagonals, sorting, mode
print(torch.diag_embed(torch.tensor([[1., 2.], [3., 4.]])), torch.diag_embed(torch.tensor([1., 2.]), 1).shape)
print(torch.diagflat(torch.tensor([[1, 2], [3, 4]])), torch.tensor([1., 2.]).diagflat(-1))
print(torch.msort(torch.tensor([[3, 1], [2, 4], [1, 0]])))
md = torch.tensor([[1, 2, 2, 3, 3], [5, 5, 4, 4, 1]])
print(torch.mode(md), md.mode(0, keepdim=True))
f = torch.zeros(3, 4); f.fill_diagonal_(7.); print(f)
f = torch.zeros(7, 3); f.fill_diagonal_(1., wrap=True); print(f)

# integration
yv = torch.tensor([1., 4., 9., 16.])
print(torch.trapezoid(yv), torch.trapz(yv, dx=0.5), torch.trapezoid(yv, torch.tensor([0., 1., 3., 4.])), torch.cumulative_trapezoid(yv))
print(torch.trapezoid(a, dim=0), torch.cumulative_trapezoid(a, dx=2.))

# windows
print(torch.hann_window(5), torch.hann_window(5, periodic=False))
print(torch.hamming_window(6), torch.blackman_window(5), torch.bartlett_window(7), torch.bartlett_window(6, False))
print(torch.hann_window(4, dtype=torch.float64), torch.hann_window(1), torch.hann_window(0))
print(torch.blackman_window(8, dtype=torch.float64), torch.bartlett_window(5), torch.hamming_window(7, False, 0.6, 0.4))

# autograd through the compositions
xr = torch.randn(2, 3, requires_grad=True)
(torch.tile(xr, (2,)).sum() + torch.diag_embed(xr).pow(2).sum() + torch.inner(xr, xr).trace() + xr.ravel()[1]).backward()
print(xr.grad)

# in-place torch functions
s = torch.tensor([0.5, 1.0]); torch.sin_(s); torch.exp2_(s); print(s)
print(torch.matrix_power(torch.tensor([[1., 1.], [0., 1.]]), 3))
