# torch.remainder(number, tensor) (ATen's remainder.Scalar_Tensor), and unique(sorted=False) in
# the order of ATen's CPU hash set.
import torch

x = torch.tensor([3.0, -2.5, 4.0, -7.0])
print(torch.remainder(5, x), torch.remainder(-5.5, x), torch.remainder(0.75, x))
print(torch.remainder(5, torch.tensor([3, -2, 4])), torch.remainder(5.5, torch.tensor([3, -2, 4])))
print(torch.remainder(True, torch.tensor([3, -2])), torch.remainder(5, torch.tensor([3, 0, 4]).float()))
print(torch.remainder(-3, torch.tensor(2.5, dtype=torch.float64)), torch.remainder(2, torch.tensor([1.5], dtype=torch.float16)))
print(torch.remainder(7, torch.tensor([[2, 3], [-4, 5]], dtype=torch.int32)), 5 % x, x.__rmod__(5))
try:
    torch.remainder(5, torch.tensor([3, 0, 4]))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.remainder(5, 3)
except TypeError as e:
    print("TypeError")

print(torch.tensor([1.0, 2.0, 3.0, 2.0, 1.0, 5.0]).unique(sorted=False))
print(torch.unique(torch.tensor([4, 1, 3, 1, 4, 9, 0]), sorted=False, return_inverse=True, return_counts=True))
print(torch.unique(torch.tensor([4, 1, 3, 1, 4, 9, 0, 17, 33, 2, 100, -5, 6, 6, 8]), sorted=False))
print(torch.unique(torch.tensor([0.5, -1.0, 0.5, 2.25, 7.0, -1.0, 3.0]), sorted=False, return_inverse=True))
print(torch.unique(torch.tensor([True, False, True]), sorted=False))
print(torch.unique(torch.tensor([[1, 2], [1, 2], [0, 3]]), sorted=False, dim=0))
print(torch.unique(torch.tensor([0.0, -0.0, 1.5, 0.0]), sorted=False, return_counts=True))
# growth past 13, 29, 59 buckets: each rehash relinks the list
a = (torch.arange(200) * 37) % 151 - 40
print(torch.unique(a, sorted=False))
v, i, c = torch.unique(a.reshape(10, 20), sorted=False, return_inverse=True, return_counts=True)
print(i[:3], c.sum(), (v[i] == a.reshape(10, 20)).all())
print(torch.unique((torch.arange(90.0) * 0.37) % 7.25, sorted=False))
print(torch.unique((torch.arange(70, dtype=torch.float64) * 1.3) % 11.0, sorted=False))
print(torch.unique(torch.tensor([5, 3, 5, -1, 200], dtype=torch.int32), sorted=False))
print(torch.unique(torch.tensor([5, 3, 5, 250, 7], dtype=torch.uint8), sorted=False))
print(torch.unique(torch.tensor([5, -3, 5, -128, 7], dtype=torch.int8), sorted=False, return_inverse=True))
print(torch.unique(torch.tensor([], dtype=torch.int64), sorted=False), torch.unique(torch.tensor(3.5), sorted=False))
print(torch.tensor([[2, 9], [9, 4]]).unique(sorted=False, return_counts=True))
