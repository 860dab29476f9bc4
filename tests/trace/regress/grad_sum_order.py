# An input of a compiled region that gets several gradient contributions inside it and others
# from outside: the engine must add them to the input's gradient in the order eager's nodes
# deliver them (floating-point addition is not associative, so 1 + (2x + 2x) is not (1 + 2x) + 2x
# in the last bit).  Only correctly rounded ops (+, *) are used, so PyTorch's output is Ember's
# bit for bit.  The compiled backward returns each contribution on its own edge instead of
# summing them itself.
import torch


def show(t):
    return t.reshape(-1).tolist()


@torch.compile
def squares_and_view(x):
    return x.t(), x * x


@torch.compile
def three_uses(x, w):
    return (x * w) * x + x * 0.7


x = torch.tensor([[-0.86, -0.13, -0.92, -0.44], [-0.15, 0.79, 0.48, -0.11], [-0.14, -0.92, -0.13, 0.13]],
                 requires_grad=True)
w = torch.tensor([[0.3, -1.7, 2.9, 0.01], [1.1, 0.6, -0.35, 2.2], [-0.8, 0.45, 1.3, -2.7]], requires_grad=True)

# a view output of the input (its backward runs outside the compiled node, first)
t, sq = squares_and_view(x)
(t.sum() + (sq * 2).sum()).backward()
print("view first:", show(x.grad))

# contributions from eager ops made after the region (they run first) and before it (after)
x.grad = None
before = x * 0.37
out = three_uses(x, w)
after = x * 1.3
(before.sum() * 3 + out.sum() + after.sum()).backward()
print("before/after:", show(x.grad), show(w.grad))

# a non-leaf input: its grad_fn's buffer gets the contributions
x.grad = None
w.grad = None
h = x * 1.5
out = three_uses(h, w)
(out.sum() + (h * h).sum()).backward()
print("non-leaf:", show(x.grad), show(w.grad))

# a view returned from between the input's other uses: the step runs eagerly (exact order)
x.grad = None


@torch.compile
def view_between(x):
    a = x * x
    v = x.t()
    return a * x, v


a, v = view_between(x)
(a.sum() + (v * 3).sum()).backward()
print("view between:", show(x.grad))
