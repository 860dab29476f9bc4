"""torch.nn.functional: the nn kernels of torch._C._nn plus the activations shared with Tensor."""
from torch._C._nn import *
