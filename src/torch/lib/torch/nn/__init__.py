"""torch.nn: modules, parameters, layers, losses, init and functional."""
import torch.nn.functional as functional
from torch.nn.parameter import Parameter, UninitializedParameter, UninitializedBuffer
import torch.nn.init as init
from torch.nn.modules import *
import torch.nn.modules as modules
import torch.nn.modules.module
import torch.nn.utils as utils


def __getattr__(name):
    # PyTorch's torch.nn imports torch.nn.parallel (and with it torch.distributed); Ember imports
    # it on first use (PEP 562), so `import torch` does not pay for the distributed package
    if name == "parallel":
        import torch.nn.parallel
        return torch.nn.parallel
    if name == "DataParallel":
        from torch.nn.parallel.data_parallel import DataParallel
        return DataParallel
    raise AttributeError(f"module 'torch.nn' has no attribute '{name}'")
