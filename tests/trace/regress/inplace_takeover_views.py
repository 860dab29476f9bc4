# A fused group may write its output into the buffer of an input that dies there (in-place
# takeover), element by element while it still reads its inputs.  When the group also reads
# another view of that input (a transpose, a shifted slice, a flip), it reads elements it has
# already overwritten: the ember backend printed relu(t2)[1][2] inside t2.t().contiguous()
# (fuzz_compile seed 18279, the a=3 recompile where the product is square).
import torch


def transposed(x, w):
    t2 = x @ w
    t5 = t2.relu()
    t9 = t2.transpose(0, 1).contiguous()
    return t9, t5


def transposed_sum(x):
    t = x * 3
    return t.sigmoid() + t.t()


def shifted(x):
    t = x - 0.5
    u = t[1:] * 2
    return t.relu(), u


def flipped(x):
    t = x + 1
    return t.neg(), t.flip(0) * 1.0


for a in [2, 3, 4]:
    x = torch.tensor([0.73, -1.00, 0.75, 0.86, 0.37, 0.34, -0.20, -0.76, -0.35, -0.72, -0.18, 0.67,
                      1.00, -0.63, 0.52, -0.96][: a * 4]).reshape(a, 4).requires_grad_()
    w = torch.tensor([0.76, -0.48, -0.37, -0.46, 0.09, -0.94, 0.43, 0.58, 0.46, -0.21, 0.90, -0.43,
                      0.11, -0.27, 0.64, 0.05][: 4 * a]).reshape(4, a).requires_grad_()
    outs = transposed(x, w)
    sum((o * (k + 1)).sum() for k, o in enumerate(outs)).backward()
    print("transposed", a, [o.tolist() for o in outs])
    print("grads", a, x.grad.tolist(), w.grad.tolist())
    sq = torch.tensor([0.2, -0.9, 0.4, 0.7, -0.1, 0.5, -0.6, 0.3, 0.8, -0.4, 0.05, -0.75,
                       0.65, -0.35, 0.15, 0.9][: a * a]).reshape(a, a)
    print("transposed_sum", a, transposed_sum(sq).tolist())
    print("shifted", a, [o.tolist() for o in shifted(sq)])
    print("flipped", a, [o.tolist() for o in flipped(sq)])
