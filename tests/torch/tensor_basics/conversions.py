# detach, clone, tolist, item, contiguous, float()/long()/bool(), to(), type conversions.
import torch


def show(name, t):
    print(name, t.dtype, list(t.shape), t.tolist())


x = torch.tensor([[1.5, -2.25], [0.0, 3.75]], requires_grad=True)
d = x.detach()
print(d.requires_grad, d.is_leaf, d.grad_fn, d.data_ptr() == x.data_ptr())
c = x.clone()
print(c.requires_grad, c.is_leaf, c.grad_fn.name(), c.data_ptr() == x.data_ptr())
show("float", x.detach().float())
show("long", x.detach().long())
show("bool", x.detach().bool())
show("to long", x.detach().to(torch.long))
show("to int64", x.detach().to(dtype=torch.int64))
show("to bool", x.detach().to(torch.bool))
show("to other", torch.tensor([1, 2]).to(x))
print(x.tolist(), torch.tensor(2.5).tolist(), torch.tensor([True, False]).tolist())
print(torch.tensor([7]).item(), torch.tensor(2.5).item(), torch.tensor(True).item())
print(type(torch.tensor(3).item()).__name__, type(torch.tensor(3.0).item()).__name__)
print(float(torch.tensor([2.5])), int(torch.tensor(3.9)), bool(torch.tensor([1])))
print(torch.tensor(5) + 1, [10, 20, 30][torch.tensor(1)])

t = torch.arange(6).reshape(2, 3)
tt = t.t()
print(t.is_contiguous(), tt.is_contiguous(), tt.contiguous().is_contiguous())
print(t.contiguous() is t, tt.contiguous().tolist(), tt.stride(), tt.contiguous().stride())
y = x * 2
print(y.float() is y, y.long().grad_fn, y.float().grad_fn.name())
z = torch.tensor([1, 2, 3])
zf = z.float()
print(zf.dtype, zf.tolist(), z.float().requires_grad)
print(x.is_floating_point(), z.is_floating_point(), torch.is_floating_point(zf))
print(torch.is_tensor(x), torch.is_tensor([1]), torch.numel(x))
print(x.type(), z.type(), torch.tensor([True]).type())
print(x.element_size(), z.element_size(), torch.tensor([True]).element_size())
print(len(x), len(torch.zeros(4, 2)), [r.tolist() for r in torch.tensor([[1, 2], [3, 4]])])
print(x.cpu() is x, x.to("cpu") is x, x.device.type, str(x.device), repr(x.device))
