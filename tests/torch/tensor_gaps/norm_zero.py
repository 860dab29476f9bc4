# linalg.vector_norm / torch.norm / Tensor.norm: one op (LinalgVectorNormBackward0) whose
# gradient at a zero vector is 0, as PyTorch's norm_backward masks the zero norm.
import torch


def grad_of(f, xs, dtype=torch.float32):
    x = torch.tensor(xs, dtype=dtype, requires_grad=True)
    y = f(x)
    print("y", y.detach())
    y.sum().backward()
    print("grad", x.grad)


grad_of(lambda x: x.norm(), [0.0, 0.0, 0.0])
grad_of(lambda x: torch.norm(x), [[0.0, 0.0], [0.0, 0.0]])
grad_of(lambda x: torch.linalg.vector_norm(x), [0.0, 0.0, 0.0])
grad_of(lambda x: torch.linalg.norm(x), [0.0, 0.0, 0.0])
grad_of(lambda x: torch.linalg.vector_norm(x, dim=1), [[0.0, 0.0], [3.0, 4.0]])
grad_of(lambda x: torch.linalg.vector_norm(x, dim=-1, keepdim=True), [[0.0, 0.0], [3.0, -4.0]])
grad_of(lambda x: x.norm(dim=0), [[0.0, 1.0], [0.0, -2.0]], torch.float64)
grad_of(lambda x: torch.linalg.vector_norm(x, 3), [0.0, 0.0, 0.0])
grad_of(lambda x: torch.linalg.vector_norm(x, 3, dim=1), [[0.0, 0.0], [1.5, -2.0]])
grad_of(lambda x: torch.linalg.vector_norm(x, 1.5), [0.0, 0.0, 0.0])
grad_of(lambda x: torch.linalg.vector_norm(x, 1.5), [1.0, -0.5, 2.0])
grad_of(lambda x: torch.linalg.vector_norm(x, 1), [0.0, -2.0, 3.0])
grad_of(lambda x: torch.linalg.vector_norm(x, 0.5), [0.25, -2.0, 3.0])
grad_of(lambda x: torch.linalg.vector_norm(x, 0), [0.0, -2.0, 3.0])
grad_of(lambda x: torch.linalg.vector_norm(x, float("inf")), [1.0, -3.0, 3.0])
grad_of(lambda x: torch.linalg.vector_norm(x, float("-inf"), dim=0), [[1.0, -3.0], [-1.0, 2.0]])
grad_of(lambda x: torch.linalg.vector_norm(x, 4), [1.0, -0.5, 2.0])
grad_of(lambda x: torch.linalg.vector_norm(x, 2, dim=(0, 1)), [[1.0, -0.5], [2.0, 0.25]])
grad_of(lambda x: x.norm(p=2, dim=1), [[0.5, -0.5], [2.0, 0.25]])
print(torch.linalg.vector_norm(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), keepdim=True))
print(torch.linalg.vector_norm(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), float("inf"), keepdim=True))
print(torch.tensor(3.0).norm())
x = torch.tensor([3.0, 4.0], requires_grad=True)
print(x.norm().grad_fn.name(), torch.linalg.vector_norm(x, 1).grad_fn.name())
print(torch.norm(torch.zeros(3, requires_grad=True)), torch.linalg.norm(x, dim=0))
print(x.norm(p=3, dim=0, keepdim=True), torch.linalg.vector_norm(x, 0))

# the normalised vector a model computes: x / x.norm() through a zero row
x = torch.tensor([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]], requires_grad=True)
n = x.norm(dim=1, keepdim=True)
(x * n).sum().backward()
print("x*norm grad", x.grad)

x = torch.tensor([0.0, 0.0], dtype=torch.float64, requires_grad=True)
(g,) = torch.autograd.grad(torch.linalg.vector_norm(x), x, create_graph=True)
print("create_graph", g)
y = torch.tensor([0.3, -1.2, 0.7], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(lambda t: torch.linalg.vector_norm(t, 3), (y,)))
print(torch.autograd.gradgradcheck(lambda t: torch.linalg.vector_norm(t), (y,)))
