"""torch.distributed: process groups on Gloo and Open MPI, collectives and point-to-point
operations (distributed_c10d), the launcher (torch.distributed.run), FSDP (fsdp) and the
single-process tools (_tools: ModTracker).  The engines are Ember's own modules in src/dist."""
from torch.distributed.distributed_c10d import *  # noqa: F401,F403
from torch.distributed.distributed_c10d import (  # noqa: F401
    _all_gather_base,
    _reduce_scatter_base,
    _get_default_group,
    _rank_not_in_group,
    _store_based_barrier,
    _object_to_tensor,
    _tensor_to_object,
)
from torch.distributed.distributed_c10d import GradBucket  # noqa: F401


def is_available():
    return True
