# torch.einsum: explicit and implicit outputs, repeated subscripts (diagonals), ellipsis, sums,
# broadcasting, list operands, gradients, float64, errors, compiled
import torch

def show(*xs):
    print(*[x.detach() if isinstance(x, torch.Tensor) else x for x in xs])

def check(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

a = torch.arange(6.).reshape(2, 3)
b = torch.arange(12.).reshape(3, 4) / 4
c = torch.arange(9.).reshape(3, 3)
v = torch.tensor([1., -2., 0.5])
w = torch.tensor([3., 1.])
bt = torch.arange(24.).reshape(2, 3, 4) / 7
bu = torch.arange(16.).reshape(2, 4, 2) - 3

print(torch.einsum('ij,jk->ik', a, b))
print(torch.einsum('ij,jk', a, b))
print(torch.einsum('ij->ji', a), torch.einsum('ij', a), torch.einsum('ji', a))
print(torch.einsum('ii', c), torch.einsum('ii->i', c), torch.einsum('ij->', a), torch.einsum('ij->j', a))
print(torch.einsum('i,i->', v, v), torch.einsum('i,j->ij', v, w), torch.einsum('i,j', w, v))
print(torch.einsum('bij,bjk->bik', bt, bu))
print(torch.einsum('...ij,...jk->...ik', bt, bu))
print(torch.einsum('b...,b->...', bt, w))
print(torch.einsum('...ii->...i', torch.arange(18.).reshape(2, 3, 3)))
print(torch.einsum('iij->ij', torch.arange(18.).reshape(3, 3, 2)))
print(torch.einsum('ijk,jil->kl', torch.arange(24.).reshape(2, 3, 4), torch.arange(12.).reshape(3, 2, 2)))
print(torch.einsum('ij,ij,ij->i', a, a, a))
print(torch.einsum('ij,kj->ik', a, torch.ones(1, 3)))
print(torch.einsum('ij,j->i', a, torch.ones(1)))
print(torch.einsum('bn,anm,bm->ba', torch.ones(2, 3), torch.arange(24.).reshape(4, 3, 2), torch.ones(2, 2)))
print(torch.einsum('ij,jk->ik', [a, b]))
print(torch.einsum('i j , j k -> i k', a, b))
print(torch.einsum('Ab,bc->Ac', a, b))
print(torch.einsum('ij,jk->ik', a.double(), b.double()))
print(torch.einsum('ij,jk->ik', torch.ones(2, 3, dtype=torch.long), torch.ones(3, 2, dtype=torch.long)))

x = torch.tensor([[1., 2.], [3., -1.]], requires_grad=True)
y = torch.tensor([[0.5, -1.5], [2., 1.]], dtype=torch.float32, requires_grad=True)
r = torch.einsum('ij,jk,ki->', x, y, x)
r.backward()
show(r, x.grad, y.grad)
x.grad = None
torch.einsum('ii->', x).backward()
show(x.grad)

check(lambda: torch.einsum('ij,jk', a))
check(lambda: torch.einsum('ij', a, a))
check(lambda: torch.einsum('ij,jk->ik', a, torch.ones(4, 5)))
check(lambda: torch.einsum('ij->k', a))
check(lambda: torch.einsum('ij', torch.ones(2, 3, 4)))
check(lambda: torch.einsum('ii', a))
check(lambda: torch.einsum('i->ii', v))
check(lambda: torch.einsum('i1', v))
check(lambda: torch.einsum('ijk...', v))

@torch.compile
def f(p, q, r):
    return torch.einsum('bij,bjk->bik', p, q).sum(0) + torch.einsum('ii->i', r) + torch.einsum('...j,j', p, r[0]).sum()

p = torch.arange(12.).reshape(2, 2, 3).requires_grad_()
q = torch.arange(6.).reshape(2, 3, 1).requires_grad_()
s = torch.eye(3).requires_grad_()
o = f(p, q, s)
o.sum().backward()
show(o, p.grad, q.grad, s.grad)

# the diagonal is a strided view of the operand (ATen's einsum takes operand.diagonal()):
# writing through it writes the operand; non-contiguous operands and views of views
c2 = torch.arange(9.).reshape(3, 3)
d = torch.einsum('ii->i', c2)
d.mul_(10)
print(c2, d.stride(), d.is_contiguous())
t3 = torch.arange(36.).reshape(3, 3, 4)[:, :, 1::2]
print(torch.einsum('iij->ji', t3), torch.einsum('ii->i', c2.t()), torch.einsum('bii->b', t3.permute(2, 0, 1)))
