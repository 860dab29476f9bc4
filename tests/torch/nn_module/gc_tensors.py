# the memory-debugging idiom: tensors alive, found through gc.get_objects()
import gc
import torch

t = torch.randn(7, 13)
lin = torch.nn.Linear(13, 7)
found = sorted(tuple(o.shape) for o in gc.get_objects() if type(o) in (torch.Tensor, torch.nn.Parameter) and o.dim() == 2 and o.shape[0] == 7)
print(found)
del t
print(sorted(tuple(o.shape) for o in gc.get_objects() if type(o) in (torch.Tensor, torch.nn.Parameter) and o.dim() == 2 and o.shape[0] == 7))
