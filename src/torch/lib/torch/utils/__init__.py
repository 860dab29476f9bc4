"""torch.utils"""
import torch.utils.hooks
