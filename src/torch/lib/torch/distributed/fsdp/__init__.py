"""torch.distributed.fsdp: Ember runs in one process; the package holds FSDP's single-process
helpers (_trace_utils: the execution-order recording of seed 002, on torch.fx)."""
