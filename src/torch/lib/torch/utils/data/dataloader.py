"""torch.utils.data.dataloader: DataLoader in the calling process (num_workers=0) and
default_collate."""
import torch
from torch.utils.data.dataset import IterableDataset
from torch.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate"]


def default_collate(batch):
    """Stacks a list of samples: tensors with torch.stack, numbers into a tensor, and tuples,
    lists and dicts element by element."""
    elem = batch[0]
    if isinstance(elem, torch.Tensor):
        return torch.stack(batch, 0)
    if isinstance(elem, bool):
        return torch.tensor(batch)
    if isinstance(elem, int):
        return torch.tensor(batch)
    if isinstance(elem, float):
        return torch.tensor(batch, dtype=torch.float64)
    if isinstance(elem, str):
        return batch
    if isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, (list, tuple)):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        return [default_collate(samples) for samples in transposed]
    raise TypeError("default_collate: batch must contain tensors, numbers, dicts or lists; found {}".format(type(elem)))


class DataLoader(object):
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=2, persistent_workers=False,
                 pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing.")
        assert prefetch_factor > 0
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
            drop_last = False
        self.dataset = dataset
        self.num_workers = num_workers
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.generator = generator
        self.worker_init_fn = worker_init_fn
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.timeout = timeout
        self.pin_memory = pin_memory
        self._iterable = isinstance(dataset, IterableDataset)
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if batch_size is not None or batch_sampler is not None else (lambda x: x)
        self.collate_fn = collate_fn

    def __iter__(self):
        # PyTorch's _BaseDataLoaderIter draws the workers' base seed when the iterator is made,
        # before the sampler draws: the same stream order keeps shuffles PyTorch's
        self._base_seed = torch.empty((), dtype=torch.int64).random_(generator=self.generator).item()
        if self.num_workers > 0:
            # worker processes (torch/utils/data/_worker.py)
            from torch.utils.data._worker import _MultiProcessingIter
            self._check_worker_number_rationality()
            return _MultiProcessingIter(self, self._base_seed)
        return self._batches()

    def _check_worker_number_rationality(self):
        """PyTorch's warning when there are more workers than CPUs this process may run on."""
        import os
        import warnings
        try:
            suggest, cpuset_checked = len(os.sched_getaffinity(0)), True
        except Exception:
            suggest, cpuset_checked = os.cpu_count(), False
        if suggest is None:
            detail = "DataLoader is not able to compute a suggested max number of worker in current system."
        elif self.num_workers > suggest:
            detail = ("Our suggested max number of worker in current system is {}{}, which is smaller than what "
                      "this DataLoader is going to create.").format(
                          suggest, "" if cpuset_checked else " (`cpuset` is not taken into account)")
        else:
            return
        warnings.warn("This DataLoader will create {} worker processes in total. {} Please be aware that "
                      "excessive worker creation might get DataLoader running slow or even freeze, lower the "
                      "worker number to avoid potential slowness/freeze if necessary.".format(self.num_workers, detail))

    def _next_iterable_batch(self, iterator):
        """A worker's next batch from its IterableDataset iterator, or None when it is done."""
        if self.batch_size is None:
            for sample in iterator:
                return self.collate_fn(sample)
            return None
        batch = []
        for sample in iterator:
            batch.append(sample)
            if len(batch) == self.batch_size:
                return self.collate_fn(batch)
        if batch and not self.drop_last:
            return self.collate_fn(batch)
        return None

    def _batches(self):
        if self._iterable:
            batch = []
            for sample in self.dataset:
                if self.batch_size is None:
                    yield self.collate_fn(sample)
                    continue
                batch.append(sample)
                if len(batch) == self.batch_size:
                    yield self.collate_fn(batch)
                    batch = []
            if batch and not self.drop_last:
                yield self.collate_fn(batch)
            return
        if self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])

    def __len__(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)
