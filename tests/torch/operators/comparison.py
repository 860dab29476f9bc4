# Comparison and logical operators: results are bool tensors.
import torch

a = torch.tensor([1.0, 2.0, 3.0, 4.0])
b = torch.tensor([4.0, 2.0, 1.0, 4.0])
print((a == b).tolist(), (a != b).tolist(), (a < b).tolist(), (a <= b).tolist())
print((a > b).tolist(), (a >= b).tolist(), (a > 2).tolist(), (2 < a).tolist(), (a == 2).tolist())
print((a == b).dtype, a.eq(b).tolist(), a.ne(2).tolist(), a.lt(3).tolist(), a.le(b).tolist(),
      a.gt(b).tolist(), a.ge(3).tolist())
print(torch.eq(a, b).tolist(), torch.gt(a, 1).tolist())
m = a > 1.5
n = b > 1.5
print((m & n).tolist(), (m | n).tolist(), (m ^ n).tolist(), (~m).tolist())
print(m.logical_and(n).tolist(), torch.logical_or(m, n).tolist(), m.logical_xor(n).tolist(),
      m.logical_not().tolist(), torch.logical_not(a).tolist())
print(bool(a.sum() > 5), (a > 0).all().item(), (a > 3).any().item(), (a > 5).any().item())
print(torch.tensor([1, 2, 3]) == torch.tensor([1.0, 5.0, 3.0]))
print(a.equal(a.clone()), a.equal(b), torch.equal(a, a))
print(a.allclose(a + 1e-7), torch.allclose(a, b), a.allclose(a + 0.01, atol=0.1))
print(a == None, a != "x")
if torch.tensor(3.0) > 2:
    print("tensor condition true")
print(max(torch.tensor(1.5), torch.tensor(0.5)).item())
