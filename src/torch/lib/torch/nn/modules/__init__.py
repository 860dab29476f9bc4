"""torch.nn.modules: the Module base class and the built-in layers."""
from torch.nn.modules.module import Module
from torch.nn.modules.linear import Identity, Linear, Bilinear, LazyLinear
from torch.nn.modules.activation import *
from torch.nn.modules.dropout import Dropout, Dropout1d, Dropout2d, AlphaDropout, Dropout3d, FeatureAlphaDropout
from torch.nn.modules.normalization import LayerNorm, GroupNorm, LocalResponseNorm
from torch.nn.modules.conv import *
from torch.nn.modules.pooling import *
from torch.nn.modules.batchnorm import *
from torch.nn.modules.instancenorm import *
from torch.nn.modules.pixelshuffle import *
from torch.nn.modules.upsampling import *
from torch.nn.modules.fold import *
from torch.nn.modules.flatten import *
from torch.nn.modules.transformer import *
from torch.nn.modules.rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from torch.nn.modules.sparse import Embedding, EmbeddingBag
from torch.nn.modules.container import Container, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from torch.nn.modules.loss import MSELoss, CrossEntropyLoss, NLLLoss, NLLLoss2d, L1Loss, SmoothL1Loss, HuberLoss, BCELoss, \
    BCEWithLogitsLoss, KLDivLoss, CosineEmbeddingLoss, MarginRankingLoss, HingeEmbeddingLoss, SoftMarginLoss, \
    TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, \
    TripletMarginWithDistanceLoss
from torch.nn.modules.padding import *
from torch.nn.modules.channelshuffle import *
from torch.nn.modules.distance import *
import torch.nn.modules.module as module
