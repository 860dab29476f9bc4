# Object collectives (broadcast_object_list, all_gather_object, gather_object, scatter_object_list)
# on CPython's own pickle.
import sys

import torch.distributed as dist

backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend)
rank = dist.get_rank()
objs = [{"rank": 0, "tags": ("a", "b")}, [1, 2.5, None], "text"] if rank == 0 else [None, None, None]
dist.broadcast_object_list(objs, src=0)
gathered = [None, None]
dist.all_gather_object(gathered, {"from": rank, "payload": "x" * (3 + 40 * rank)})
out = [None, None] if rank == 1 else None
dist.gather_object(("gathered", rank), out, dst=1)
mine = [None]
dist.scatter_object_list(mine, [{"to": 0}, {"to": 1, "big": list(range(20))}] if rank == 0 else None, src=0)
results = [None, None]
dist.all_gather_object(results, (objs, gathered, out, mine))
if rank == 0:
    for r, res in enumerate(results):
        print("rank", r)
        for item in res:
            print("  ", item)
dist.destroy_process_group()
