# vector_norm / torch.norm / linalg.norm with p=2 over rows of every length around the fused
# sum-of-squares kernel's sixteen lanes (src/tensor/reduce.c), contiguous and not, float32 and
# float64, one dim, leading dims, all dims; the backward is unchanged (ATen's norm_backward).
import torch

torch.manual_seed(0)
for n in (1, 7, 15, 16, 17, 31, 33, 40):
    x = torch.randn(3, n)
    print(n, torch.linalg.vector_norm(x, dim=1), torch.norm(x, dim=-1, keepdim=True).flatten(),
          torch.linalg.norm(x), torch.norm(x), torch.linalg.vector_norm(x, dim=0)[:4])
    print(torch.linalg.vector_norm(x.double(), dim=1), torch.linalg.vector_norm(x.t(), dim=0),
          torch.linalg.vector_norm(x[:, ::2], dim=1), torch.linalg.vector_norm(x, 2, dim=(0, 1)))
big = torch.randn(64, 300)
print(torch.linalg.vector_norm(big, dim=1)[:6], torch.norm(big), torch.linalg.norm(big.double()))
g = torch.randn(4, 20, requires_grad=True)
torch.linalg.vector_norm(g, dim=1).sum().backward()
print(g.grad[:, :5])
z = torch.zeros(2, 18, requires_grad=True)
torch.norm(z, dim=1).sum().backward()
print(torch.norm(z, dim=1), z.grad[:, :3])
