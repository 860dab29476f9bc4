# A matrix product whose output gradient is a broadcast (mean's backward expands it, zero row
# stride): eager's mm backward packs that view before BLAS, the compiled backward may hand the
# kernel a materialized copy.  The kernel must pick its BLAS routine (gemv for a one-row
# product, gemm otherwise) from the shapes alone, or the two round differently in the last bit
# (fuzz_compile seed 10558: w.grad at the a=3 recompile).
import torch

GRADS = []


def record_grad(g):
    GRADS.append(g.sum().item())
    return g


def f(x, w):
    with torch.set_grad_enabled(False):
        t1 = x * 2
    t2 = t1 @ w
    t3 = t2.mean(dim=0)
    t3.register_hook(record_grad)
    return w / (t3.abs() + 1)


for step, a in enumerate([2, 2, 3, 4]):
    x = torch.tensor([-0.47, 0.51, 0.09, -0.59][:a]).reshape(a, 1).requires_grad_()
    w = torch.tensor([0.62, -0.59, 0.82]).reshape(1, 3).requires_grad_()
    out = f(x, w)
    out.sum().backward()
    # Rounded: PyTorch's BLAS and Ember's OpenBLAS calls round these sums differently in the
    # last bit, so the bitwise eager/compiled check is the kernel check below (and the fuzzer).
    print("out", step, [[round(v, 5) for v in r] for r in out.tolist()])
    print("grad", step, x.grad, [[round(v, 5) for v in r] for r in w.grad.tolist()])
    print("hook", step, [round(v, 5) for v in GRADS])

# The kernel itself: a one-row product against an expanded (zero-stride) matrix equals the
# product against its contiguous copy, and so does a one-column product.
a = torch.tensor([[-0.94, 1.02, 0.18]])
e = (torch.tensor([[0.123456, -0.7654321, 0.33333]]) / 3).expand(3, 3)
print(torch.equal(a.mm(e), a.mm(e.contiguous())), [round(v, 5) for v in a.mm(e).reshape(-1).tolist()])
c = a.t()
print(torch.equal(e.t().mm(c), e.t().contiguous().mm(c)), [round(v, 5) for v in e.t().mm(c).reshape(-1).tolist()])
