"""torch.optim: SGD, Adam, AdamW, Adadelta, Adagrad, Adamax, NAdam, RAdam, RMSprop, LBFGS, Rprop, ASGD and lr_scheduler."""
from torch.optim.optimizer import Optimizer
from torch.optim.sgd import SGD
from torch.optim.adam import Adam
from torch.optim.adamw import AdamW
from torch.optim.adadelta import Adadelta
from torch.optim.adagrad import Adagrad
from torch.optim.adamax import Adamax
from torch.optim.nadam import NAdam
from torch.optim.radam import RAdam
from torch.optim.rmsprop import RMSprop
from torch.optim.lbfgs import LBFGS
from torch.optim.rprop import Rprop
from torch.optim.asgd import ASGD
import torch.optim.optimizer as optimizer
import torch.optim.lr_scheduler as lr_scheduler
