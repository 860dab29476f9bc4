"""torch.utils.data: datasets, samplers (DistributedSampler included) and a single-process
DataLoader.  Shuffling draws torch.randperm from a torch.Generator, as PyTorch does; until the
tensor library has PyTorch's generator (issue 16) shuffle=True raises."""
from torch.utils.data.dataset import (  # noqa: F401
    Dataset, IterableDataset, TensorDataset, ConcatDataset, Subset, random_split,
)
from torch.utils.data.sampler import (  # noqa: F401
    Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler, BatchSampler,
)
from torch.utils.data.distributed import DistributedSampler  # noqa: F401
from torch.utils.data.dataloader import DataLoader, default_collate  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "Subset", "random_split", "Sampler",
           "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
           "DistributedSampler", "DataLoader", "default_collate", "get_worker_info"]


def get_worker_info():
    """In a DataLoader worker process: its WorkerInfo (id, num_workers, seed, dataset); in the
    main process None."""
    import sys
    worker = sys.modules.get("torch.utils.data._worker")
    return None if worker is None else worker.get_worker_info()
