# The legacy tensor types: constructors of a fixed dtype, isinstance by dtype, Tensor.type with a
# type or its name, set_default_tensor_type; and in-place methods PyTorch has beside each op.
import torch
print(torch.FloatTensor, torch.FloatTensor([1, 2]), torch.LongTensor(2).shape, torch.LongTensor([1, 2]).dtype)
print(torch.DoubleTensor([1]), isinstance(torch.ones(1), torch.FloatTensor), isinstance(torch.ones(1), torch.LongTensor))
print(torch.ByteTensor([1, 2]), torch.BoolTensor([True]), torch.IntTensor(torch.Size([2, 0])).shape, torch.FloatTensor().shape)
x = torch.ones(2)
print(x.type(), x.type(torch.DoubleTensor).dtype, x.type("torch.IntTensor"), x.type(torch.int64).dtype)
torch.set_default_tensor_type(torch.DoubleTensor)
print(torch.ones(1).dtype, torch.tensor([1.5]).dtype)
torch.set_default_tensor_type("torch.FloatTensor")
print(torch.ones(1).dtype)
try:
    torch.set_default_tensor_type(torch.LongTensor)
except TypeError as e:
    print("TypeError:", e)
try:
    torch.FloatTensor(torch.ones(2, dtype=torch.int64))
except TypeError as e:
    print("TypeError:", e)
try:
    x.type("torch.Foo")
except ValueError as e:
    print("ValueError:", e)
print(x.get_device(), x.is_inference(), torch.zeros(3).cumsum_(0), torch.ones(3, 3).tril_().sum(), torch.ones(2).lerp_(torch.zeros(2), 0.25))
y = torch.arange(4.); y.multiply_(2); y.subtract_(1); y.true_divide_(2); print(y)
