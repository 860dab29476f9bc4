# Natives and autograd steps that run a tensor kernel directly, not through the dispatcher (which
# runs no kernel on the tracer's fakes): an in-place pointwise op on a tensor requiring grad
# (autograd saves a clone of self, then copies the result in), scatter_reduce_ (its saver clones
# self), copies of non-contiguous fakes (contiguous, reshape, clone, to), copy_ between fakes,
# a generator's set_state with a traced tensor.  Since fakes have no data (meta storage) the clone
# dereferenced the missing data and the process died with SIGSEGV under --compile-all (sin_,
# scatter_reduce_); every copy of the tensor library now refuses a tensor without data, the
# call graph-breaks and runs eagerly.
import torch


def inplace_pointwise(x):
    y = x * 1
    y.sin_()
    y.add_(1)
    y.pow_(2)
    y.clamp_(0.5, 3.5)
    y.cos_()
    return y


def scatter_reduce_inplace(x, i):
    y = x * 1
    y.scatter_reduce_(0, i, torch.tensor([1.0, 2.0, 3.0]), reduce="sum")
    return y


def copies(x):
    a = x.t().contiguous()
    b = x.t().reshape(-1)
    c = x.t().clone()
    d = x.t().double().float()
    e = x.new_zeros(2).copy_(x[0, :2])
    f = x.t().to(torch.int64)
    return a, b, c, d, e, f


def indexed_writes(x, i):
    y = x * 1
    y[0] = 5.0
    y.index_put_((i,), torch.tensor([1.0, 2.0]))
    y.masked_fill_(y > 4, 0.25)
    y.index_add_(0, i, torch.tensor([1.0, 1.0]))
    return y


gen = torch.Generator()


def reseed(x, state):
    gen.set_state(state)
    return torch.rand(2, generator=gen) + x


state = torch.Generator().manual_seed(7).get_state()
for step in range(2):
    x = torch.arange(1.0, 4.0, requires_grad=True)
    r = inplace_pointwise(x)
    print([round(v, 6) for v in r.tolist()])
    r.sum().backward()
    print([round(v, 5) for v in x.grad.tolist()])
    x = torch.ones(3, requires_grad=True)
    r = scatter_reduce_inplace(x, torch.tensor([0, 1, 0]))
    print(r.tolist())
    (r * torch.arange(3.0)).sum().backward()
    print(x.grad.tolist())
    for t in copies(torch.arange(6.0).reshape(2, 3) + step):
        print(t.dtype, t.tolist())
    x = torch.arange(1.0, 4.0, requires_grad=True)
    r = indexed_writes(x, torch.tensor([0, 2]))
    print(r.tolist())
    r.sum().backward()
    print(x.grad.tolist())
    print(reseed(torch.full((2,), float(step)), state).tolist())
