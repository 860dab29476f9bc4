"""torch.optim: SGD, Adam, AdamW."""
from torch.optim.optimizer import Optimizer
from torch.optim.sgd import SGD
from torch.optim.adam import Adam
from torch.optim.adamw import AdamW
import torch.optim.optimizer as optimizer
