"""torch.distributed.algorithms.ddp_comm_hooks.default_hooks: allreduce_hook (what DDP does
without a hook) and fp16_compress_hook (gradients travel as float16), as PyTorch's."""
import torch
import torch.distributed as dist

__all__ = ["allreduce_hook", "fp16_compress_hook"]


def _allreduce_fut(process_group, tensor):
    "Averages the input gradient tensor by allreduce and returns a future."
    group_to_use = process_group if process_group is not None else dist.group.WORLD
    # Apply the division first to avoid overflow, especially for FP16.
    tensor.div_(group_to_use.size())
    return (
        dist.all_reduce(tensor, group=group_to_use, async_op=True)
        .get_future()
        .then(lambda fut: fut.value()[0])
    )


def allreduce_hook(process_group, bucket):
    """All-reduces the bucket averaged over the group: DDP's own behaviour, as a hook."""
    return _allreduce_fut(process_group, bucket.buffer())


def fp16_compress_hook(process_group, bucket):
    """Sends the bucket as float16: PyTorch computes bucket.buffer().to(torch.float16)
    .div_(world_size), all-reduces the halves and copies the sum back into the float32 buffer.
    The tensor library has no float16 tensors yet, so the group does the same arithmetic on the
    float32 buffer (round to half, divide in half precision, sum halves as gloo does, widen)."""
    group_to_use = process_group if process_group is not None else dist.group.WORLD
    world_size = group_to_use.size()
    buffer = bucket.buffer()
    fut = group_to_use._allreduce_fp16(buffer, world_size).get_future()

    def decompress(fut):
        return buffer

    return fut.then(decompress)
