"""torch.cuda.amp.GradScaler without CUDA: PyTorch disables it (with a warning when asked to be
enabled), and a disabled scaler passes everything through: scale(x) is x, step(opt) is
opt.step(), unscale_ and update do nothing."""
import warnings

import torch


class GradScaler:
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        if enabled and not torch.cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            enabled = False
        self._enabled = enabled
        if enabled:   # unreachable without CUDA: kept for the reader of PyTorch's constructor
            raise AssertionError("Torch not compiled with CUDA enabled")

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer):
        pass

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        pass

    def get_scale(self):
        return 1.0

    def state_dict(self):
        return {}

    def load_state_dict(self, state_dict):
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)
