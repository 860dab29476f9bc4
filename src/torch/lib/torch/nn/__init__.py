"""torch.nn: modules, parameters, layers, losses, init and functional."""
import torch.nn.functional as functional
from torch.nn.parameter import Parameter
import torch.nn.init as init
from torch.nn.modules import *
import torch.nn.modules as modules
import torch.nn.modules.module
