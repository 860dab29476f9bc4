"""torch.backends.cudnn: no cuDNN on the CPU; the flags scripts set for reproducibility
(benchmark, deterministic) are kept and read back."""
import sys

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10


def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    return False


def flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=True):
    from torch.backends import _flags_context
    return _flags_context(sys.modules[__name__], enabled=enabled, benchmark=benchmark, deterministic=deterministic,
                          allow_tf32=allow_tf32)
