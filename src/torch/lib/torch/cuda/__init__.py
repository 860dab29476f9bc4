"""torch.cuda on a machine without CUDA, as a CPU-only PyTorch 1.13 build answers: nothing is
available, the seeding functions are no-ops (scripts seed every device), the memory statistics
are zero, and what needs a device raises PyTorch's AssertionError."""
from torch.cuda import amp   # noqa: F401


def _no_cuda(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def manual_seed(seed):
    pass


def manual_seed_all(seed):
    pass


def seed():
    pass


def seed_all():
    pass


def empty_cache():
    pass


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


synchronize = current_device = get_device_name = get_device_properties = get_device_capability = _no_cuda
is_bf16_supported = get_rng_state = get_rng_state_all = set_device = init = _no_cuda


def set_rng_state(new_state, device="cuda"):
    _no_cuda()


def set_rng_state_all(new_states):
    _no_cuda()
