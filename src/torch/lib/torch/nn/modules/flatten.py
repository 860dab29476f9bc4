"""torch.nn.modules.flatten: Flatten and Unflatten."""
from torch.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return "start_dim={}, end_dim={}".format(self.start_dim, self.end_dim)


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int):
            if not isinstance(unflattened_size, (tuple, list)):
                raise TypeError("unflattened_size must be tuple of ints, but found type {}".format(
                    type(unflattened_size).__name__))
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        d = self.dim if self.dim >= 0 else input.dim() + self.dim
        shape = list(input.shape[:d]) + list(self.unflattened_size) + list(input.shape[d + 1:])
        return input.view(shape)   # PyTorch's Unflatten is Tensor.unflatten, a view (ViewBackward0)

    def extra_repr(self):
        return "dim={}, unflattened_size={}".format(self.dim, self.unflattened_size)
