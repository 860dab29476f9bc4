# What torchrun gives each worker (the environment of torch.distributed.run), checked by
# assertions under Ember's launcher with the options launcher.sh passes: rank and sizes, the master
# address and port, the run's id and restart count, the error file, OMP_NUM_THREADS.
import sys

import torch.distributed as dist
from torch._C._distributed_c10d import _getenv as getenv

expect = dict(a.split("=", 1) for a in sys.argv[1:])
rank = int(getenv("RANK"))
local = int(getenv("LOCAL_RANK"))
checks = [
    getenv("WORLD_SIZE") == expect["world"],
    getenv("LOCAL_WORLD_SIZE") == expect["local_world"],
    getenv("GROUP_RANK") == expect["node_rank"],
    rank == int(expect["node_rank"]) * int(expect["local_world"]) + local,
    getenv("ROLE_RANK") == getenv("RANK"),
    getenv("ROLE_NAME") == expect.get("role", "default"),
    getenv("ROLE_WORLD_SIZE") == expect["world"],
    getenv("GROUP_WORLD_SIZE") == expect["nnodes"],
    getenv("MASTER_ADDR") == expect["addr"],
    getenv("MASTER_PORT") == expect["port"],
    getenv("TORCHELASTIC_RESTART_COUNT") == "0",
    getenv("TORCHELASTIC_MAX_RESTARTS") == "0",
    getenv("TORCHELASTIC_RUN_ID") == expect.get("run_id", "none"),
    getenv("TORCHELASTIC_USE_AGENT_STORE") == "False",
    getenv("TORCHELASTIC_ERROR_FILE").endswith("/%d/error.json" % local),
    getenv("OMP_NUM_THREADS") == "1",
    dist.is_torchelastic_launched(),
]
assert all(checks), [i for i, c in enumerate(checks) if not c]
print("worker", rank, "environment ok")
