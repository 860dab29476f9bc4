"""torch.nn.parallel.DataParallel and data_parallel as PyTorch 1.13 runs them without an
accelerator: DataParallel keeps the module (so state dicts carry the "module." prefix scripts
expect) and calls it directly, device_ids stays empty; data_parallel fails as PyTorch's does."""
import torch
from torch.nn.modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        # no CUDA device: PyTorch keeps only the module and an empty device list
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        with torch.autograd.profiler.record_function("DataParallel.forward"):
            return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """PyTorch 1.13's functional form, which needs accelerator devices: with none, the default
    device_ids is None and taking its first entry fails as PyTorch's does."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    # device_ids defaults to the accelerators' indices, None without any: PyTorch then fails
    # taking its first entry, with this TypeError
    if output_device is None:
        output_device = device_ids[0]
    raise RuntimeError("data_parallel needs accelerator devices; this machine has none "
                       "(device_ids={})".format(device_ids))
