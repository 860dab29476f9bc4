"""torch.nn.parallel: DistributedDataParallel (torch.nn.parallel.distributed), DataParallel and
data_parallel (torch.nn.parallel.data_parallel)."""
from torch.nn.parallel.data_parallel import DataParallel, data_parallel  # noqa: F401
from torch.nn.parallel.distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
