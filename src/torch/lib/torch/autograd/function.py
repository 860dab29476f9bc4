"""torch.autograd.function: Function and the ctx class its backward nodes derive from."""
import torch._C as _C
from torch.autograd import Function

BackwardCFunction = _C._FunctionCtx
FunctionCtx = _C._FunctionCtx
