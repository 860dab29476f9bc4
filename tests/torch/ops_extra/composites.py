import torch

for dt in (torch.float32, torch.float64):
    a = torch.tensor([1.0, -2.0, 0.5], dtype=dt, requires_grad=True)
    b = torch.tensor([3.0, 0.25, -1.5], dtype=dt, requires_grad=True)
    c = torch.tensor([2.0, 4.0, -0.75], dtype=dt, requires_grad=True)
    y = torch.addcmul(a, b, c, value=0.5)
    print("addcmul", y.tolist(), a.addcmul(b, c).tolist())
    y.sum().backward()
    print(a.grad.tolist(), b.grad.tolist(), c.grad.tolist())
    a.grad = b.grad = c.grad = None
    y = torch.addcdiv(a, b, c, value=-2)
    print("addcdiv", y.tolist(), a.addcdiv(b, c).tolist())
    y.sum().backward()
    print(a.grad.tolist(), b.grad.tolist(), c.grad.tolist())
    a.grad = None
    y = torch.square(a)
    print("square", y.tolist(), a.square().tolist())
    y.sum().backward()
    print(a.grad.tolist())
    x = torch.tensor([0.0, 90.0, -180.0, 45.5], dtype=dt)
    print("deg2rad", torch.deg2rad(x).tolist(), x.deg2rad().dtype)
    print("rad2deg", torch.rad2deg(x).tolist(), x.rad2deg().tolist())

print(torch.deg2rad(torch.tensor([180, 90])).tolist(), torch.rad2deg(torch.tensor([1, 2])).dtype)
print(torch.square(torch.tensor([3, -4])).tolist())
print(torch.addcmul(torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6]), value=2).tolist())
print(torch.addcmul(torch.zeros(2, 1), torch.ones(3), torch.tensor([[2.0], [3.0]])).shape)
try:
    torch.addcdiv(torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5, 6]))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.addcmul(torch.zeros(2), torch.ones(3), torch.ones(3))
except RuntimeError as e:
    print("RuntimeError", str(e)[:60])
