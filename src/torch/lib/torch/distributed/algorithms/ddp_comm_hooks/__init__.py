"""torch.distributed.algorithms.ddp_comm_hooks: the built-in DDP communication hooks."""
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks  # noqa: F401
