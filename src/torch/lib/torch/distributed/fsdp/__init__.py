"""torch.distributed.fsdp: FullyShardedDataParallel (fully_sharded_data_parallel), its auto-wrap
policies (wrap) and FSDP's execution-order tracing helpers (_trace_utils: seed 002, on torch.fx)."""
from torch.distributed.fsdp.fully_sharded_data_parallel import (  # noqa: F401
    BackwardPrefetch,
    CPUOffload,
    FullStateDictConfig,
    FullyShardedDataParallel,
    LocalStateDictConfig,
    MixedPrecision,
    ShardedStateDictConfig,
    ShardingStrategy,
    StateDictType,
)

__all__ = ["BackwardPrefetch", "CPUOffload", "FullStateDictConfig", "FullyShardedDataParallel",
           "LocalStateDictConfig", "MixedPrecision", "ShardedStateDictConfig", "ShardingStrategy",
           "StateDictType"]
