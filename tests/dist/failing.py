# A training loop in which rank 1 goes wrong (failures.sh drives it): --mode kill (SIGKILL at
# step 2), raise (an exception at step 2), hang (stops taking part and sleeps), alone (only this
# process exists: the peer never arrives).  Every collective has a 2 s timeout, so the other rank
# fails with a clear error instead of waiting.
import ctypes
import sys
import time

import torch
import torch.distributed as dist

try:
    from datetime import timedelta
    TIMEOUT = timedelta(seconds=2)
except ImportError:          # Ember before CPython's stdlib is on its path: seconds
    TIMEOUT = 2.0

mode = sys.argv[sys.argv.index("--mode") + 1]
backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend, timeout=TIMEOUT)
rank = dist.get_rank()
for step in range(5):
    if rank == 1 and step == 2:
        if mode == "kill":
            libc = ctypes.CDLL(None)
            libc.kill(libc.getpid(), 9)
        elif mode == "raise":
            raise ValueError("bad batch on rank 1")
        elif mode == "hang":
            time.sleep(60)
    t = torch.ones(1000) * rank
    dist.all_reduce(t)
print("rank", rank, "finished")
