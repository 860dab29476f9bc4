"""all_reduce of float32 tensors from 4 KB to 64 MB on 2 ranks: seconds per call (median of
timed batches), run unchanged under Ember and PyTorch.  Prints `allreduce_<bytes> <seconds>`.
usage (under a launcher): allreduce.py [--backend gloo|mpi]"""
import sys
import time

import torch
import torch.distributed as dist

backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend)
rank = dist.get_rank()
size = 4096
while size <= 64 * 1024 * 1024:
    t = torch.ones(size // 4)
    iters = max(4, min(200, (256 * 1024 * 1024) // (size * 8)))
    for _ in range(2):
        dist.all_reduce(t)
    samples = []
    for _ in range(3):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(t)
        samples.append((time.perf_counter() - t0) / iters)
    took = torch.tensor([sorted(samples)[1]])
    dist.all_reduce(took, op=dist.ReduceOp.MAX)
    if rank == 0:
        print("allreduce_" + str(size), "%.7f" % took.item())
    size *= 4
dist.destroy_process_group()
