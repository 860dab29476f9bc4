"""torch.nn"""
import torch.nn.functional as functional
