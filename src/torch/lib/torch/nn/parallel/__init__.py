"""torch.nn.parallel: DistributedDataParallel (torch.nn.parallel.distributed)."""
from torch.nn.parallel.distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DistributedDataParallel"]
