"""torch.nn.modules.conv: Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d (PyTorch's parameter
layout, initialisation, padding modes and extra_repr) over torch.nn.functional's convolutions."""
import math

import torch
import torch.nn.functional as F
from torch.nn import init
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter, UninitializedParameter
from torch.nn.modules.lazy import LazyModuleMixin

__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "LazyConv1d", "LazyConv2d",
           "LazyConvTranspose1d", "LazyConvTranspose2d"]


def _tuple(v, n):
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError("Invalid padding string {!r}, should be one of {}".format(padding, valid_padding_strings))
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError("padding_mode must be one of {}, but got padding_mode='{}'".format(
                valid_padding_modes, padding_mode))
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's (last dim first) padding for the non-zero padding modes
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = []
            for p in reversed(self.padding):
                self._reversed_padding_repeated_twice += [p, p]
        factory_kwargs = {"device": device, "dtype": dtype}
        if transposed:
            self.weight = Parameter(torch.empty((in_channels, out_channels // groups) + tuple(kernel_size), **factory_kwargs))
        else:
            self.weight = Parameter(torch.empty((out_channels, in_channels // groups) + tuple(kernel_size), **factory_kwargs))
        if bias:
            self.bias = Parameter(torch.empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(in_channels=self.in_channels, out_channels=self.out_channels, kernel_size=self.kernel_size,
                        stride=self.stride, padding=self.padding, dilation=self.dilation,
                        output_padding=self.output_padding, groups=self.groups, padding_mode=self.padding_mode)


class Conv1d(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        padding_ = padding if isinstance(padding, str) else _tuple(padding, 1)
        super().__init__(in_channels, out_channels, _tuple(kernel_size, 1), _tuple(stride, 1), padding_,
                         _tuple(dilation, 1), False, (0,), groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            return F.conv1d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                            self.stride, (0,), self.dilation, self.groups)
        return F.conv1d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv2d(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        padding_ = padding if isinstance(padding, str) else _tuple(padding, 2)
        super().__init__(in_channels, out_channels, _tuple(kernel_size, 2), _tuple(stride, 2), padding_,
                         _tuple(dilation, 2), False, (0, 0), groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            return F.conv2d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                            self.stride, (0, 0), self.dilation, self.groups)
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for {}'.format(self.__class__.__name__))
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                         groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size, nd):
        if output_size is None:
            return self.output_padding
        output_size = list(output_size)[-nd:]
        ret = []
        for d in range(nd):
            n = input.shape[input.dim() - nd + d]
            min_size = (n - 1) * self.stride[d] - 2 * self.padding[d] + self.dilation[d] * (self.kernel_size[d] - 1) + 1
            ret.append(output_size[d] - min_size)
        return tuple(ret)


class ConvTranspose1d(_ConvTransposeNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _tuple(kernel_size, 1), _tuple(stride, 1), _tuple(padding, 1),
                         _tuple(dilation, 1), True, _tuple(output_padding, 1), groups, bias, padding_mode, device, dtype)

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size, 1)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _tuple(kernel_size, 2), _tuple(stride, 2), _tuple(padding, 2),
                         _tuple(dilation, 2), True, _tuple(output_padding, 2), groups, bias, padding_mode, device, dtype)

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size, 2)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


class _LazyConvXdMixin(LazyModuleMixin):
    """The lazy convolutions: in_channels from the first input's channel dim"""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        num_dims_no_batch = self._get_num_spatial_dims() + 1
        num_dims_batch = num_dims_no_batch + 1
        if input.dim() not in (num_dims_no_batch, num_dims_batch):
            raise RuntimeError("Expected {}D (unbatched) or {}D (batched) input to {}, but "
                               "got input of size: {}".format(num_dims_no_batch, num_dims_batch,
                                                              self.__class__.__name__, input.shape))
        return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]

    def _get_num_spatial_dims(self):
        return len(self.kernel_size)

    def _lazy_init(self, out_channels, bias, factory_kwargs, conv_args):
        """the concrete convolution's __init__ with 0 channels and no bias, then the uninitialized
        weight (and bias), sized by initialize_parameters"""
        super().__init__(0, 0, *conv_args, **factory_kwargs)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)


def _lazy_conv_init(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                    padding_mode="zeros", device=None, dtype=None):
    self._lazy_init(out_channels, bias, {"device": device, "dtype": dtype},
                    (kernel_size, stride, padding, dilation, groups, False, padding_mode))


def _lazy_conv_transpose_init(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                              bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
    self._lazy_init(out_channels, bias, {"device": device, "dtype": dtype},
                    (kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode))


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    cls_to_become = Conv1d
    __init__ = _lazy_conv_init


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    cls_to_become = Conv2d
    __init__ = _lazy_conv_init


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    cls_to_become = ConvTranspose1d
    __init__ = _lazy_conv_transpose_init


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    cls_to_become = ConvTranspose2d
    __init__ = _lazy_conv_transpose_init
