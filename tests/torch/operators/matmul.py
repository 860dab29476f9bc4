# Matrix products: @, matmul, mm, bmm, mv, dot, with gradients.
import torch


def show(name, t):
    print(name, list(t.shape), [round(v, 4) for v in t.detach().reshape(-1).tolist()])


a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
b = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], requires_grad=True)
v = torch.tensor([1.0, -1.0])
show("a@b", a @ b)
show("b@a", b @ a)
show("a@v", a @ v)
show("v@b", v @ b)
show("v@v", v @ v)
show("matmul", torch.matmul(a, b))
show("mm", a.mm(b))
show("torch.mm", torch.mm(b, a))
show("mv", a.mv(v))
show("dot", v.dot(torch.tensor([2.0, 3.0])))
bt = torch.arange(12.0).reshape(2, 3, 2)
show("bmm", bt.bmm(torch.ones(2, 2, 1)))
show("batched matmul broadcast", bt @ torch.tensor([[1.0], [2.0]]))
show("int matmul", torch.tensor([[1, 2], [3, 4]]) @ torch.tensor([[1], [1]]))
y = (a @ b).sum()
y.backward()
show("a.grad", a.grad)
show("b.grad", b.grad)
print((a @ b).grad_fn.name(), a.mm(b).grad_fn.name(), (a @ v).grad_fn.name(), (v @ v).grad_fn)
c = torch.ones(2, 2)
c @= torch.tensor([[2.0, 0.0], [0.0, 3.0]])
show("@=", c)
