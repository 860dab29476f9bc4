"""torch.nn.modules: the Module base class and the built-in layers."""
from torch.nn.modules.module import Module
from torch.nn.modules.linear import Identity, Linear, Bilinear
from torch.nn.modules.activation import *
from torch.nn.modules.dropout import Dropout
from torch.nn.modules.normalization import LayerNorm, GroupNorm
from torch.nn.modules.conv import *
from torch.nn.modules.pooling import *
from torch.nn.modules.batchnorm import *
from torch.nn.modules.pixelshuffle import *
from torch.nn.modules.sparse import Embedding
from torch.nn.modules.container import Sequential, ModuleList, ModuleDict
from torch.nn.modules.loss import MSELoss, CrossEntropyLoss, NLLLoss
import torch.nn.modules.module as module
