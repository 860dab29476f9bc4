"""torch.nn.modules.fold: Fold and Unfold (col2im / im2col)."""
import torch.nn.functional as F
from torch.nn.modules.module import Module

__all__ = ["Fold", "Unfold"]


class Unfold(Module):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "kernel_size={kernel_size}, dilation={dilation}, padding={padding}, stride={stride}".format(
            kernel_size=self.kernel_size, dilation=self.dilation, padding=self.padding, stride=self.stride)


class Fold(Module):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, padding={padding}, " \
               "stride={stride}".format(output_size=self.output_size, kernel_size=self.kernel_size,
                                        dilation=self.dilation, padding=self.padding, stride=self.stride)
