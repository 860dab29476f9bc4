"""torch.random: the default CPU generator's seed and state (PyTorch's torch/random.py), over
torch._C.default_generator (src/torch/generator.c), plus torch.normal's functional forms."""
import torch
from torch._C import default_generator


def set_rng_state(new_state):
    """Sets the random number generator state (a tensor from get_rng_state)."""
    default_generator.set_state(new_state)


def get_rng_state():
    """Returns the random number generator state (PyTorch's 5056-byte layout)."""
    return default_generator.get_state()


def manual_seed(seed):
    """Sets the seed for generating random numbers; returns torch.Generator."""
    seed = int(seed)
    return default_generator.manual_seed(seed)


def seed():
    """Sets a non-deterministic seed and returns it."""
    return default_generator.seed()


def initial_seed():
    """Returns the initial seed for generating random numbers as a Python int."""
    return default_generator.initial_seed()


class _ForkRng:
    # contextlib.contextmanager's behaviour (a context manager that also decorates) without
    # importing contextlib at `import torch`
    def __init__(self, enabled):
        self.enabled = enabled
        self.states = []

    def __enter__(self):
        self.states.append(get_rng_state() if self.enabled else None)

    def __exit__(self, *exc):
        state = self.states.pop()
        if state is not None:
            set_rng_state(state)
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices"):
    """Forks the RNG: on exit the CPU generator's state is restored (Ember has no CUDA)."""
    if devices is not None:
        devices = list(devices)
        if devices:
            raise RuntimeError("fork_rng: Ember runs on the CPU only, got devices {}".format(devices))
    return _ForkRng(enabled)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """torch.normal: (Tensor, Tensor), (Tensor, float), (float, Tensor) and (float, float, size),
    drawing as ATen's normal_out_impl does (standard normals first, then scaled and shifted)."""
    if out is not None:
        raise NotImplementedError("torch.normal(out=) is not supported")
    mt, st = isinstance(mean, torch.Tensor), isinstance(std, torch.Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float), "
                            "but expected one of (Tensor mean, Tensor std, *, torch.Generator generator, Tensor out)")
        r = torch.empty(size, dtype=dtype)
        r.normal_(mean, std, generator=generator)
        if requires_grad:
            r.requires_grad_(True)
        return r
    if mt and not st:
        if std < 0.0:
            raise RuntimeError("normal expects std >= 0.0, but found std {}".format(std))
        r = torch.empty(mean.shape)
        r.normal_(0.0, std, generator=generator)
        return r.add_(mean) if not mean.requires_grad else r + mean
    if st and bool((std < 0.0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    shape = _broadcast(mean.shape, std.shape) if mt else std.shape
    r = torch.empty(shape)
    r.normal_(0.0, 1.0, generator=generator)
    if (mt and mean.requires_grad) or std.requires_grad:
        return r * std + mean
    return r.mul_(std).add_(mean)


def _broadcast(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise RuntimeError("The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton "
                               "dimension {}".format(x, y, len(out)))
        out.append(y if x == 1 else x)
    return out
