"""torch.nn.modules.channelshuffle: ChannelShuffle over F.channel_shuffle."""
import torch.nn.functional as F
from torch.nn.modules.module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return "groups={}".format(self.groups)
