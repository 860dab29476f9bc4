# Tensor.mT / Tensor.mH: the last two dims swapped (PyTorch's transpose(-2, -1), a view), batches
# included (mT reversed every dim before), the error for fewer than 2 dims, TransposeBackward0.
import torch

x = torch.arange(24.).reshape(2, 3, 4)
print(x.mT.shape, x.mH.shape, x.mT.is_contiguous(), torch.equal(x.mT, x.transpose(-2, -1)))
print(torch.arange(6.).reshape(2, 3).mT, x.mT.stride(), x.mT.data_ptr() == x.data_ptr())
for attr in ("mT", "mH"):
    try:
        getattr(torch.ones(3), attr)
    except Exception as e:
        print(type(e).__name__, e)
y = torch.ones(2, 3, requires_grad=True)
print(y.mT.grad_fn.name(), y.mH.grad_fn.name())
