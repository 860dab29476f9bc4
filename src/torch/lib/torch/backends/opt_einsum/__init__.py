"""torch.backends.opt_einsum: the opt_einsum package is not used (einsum contracts left to right,
as PyTorch without it)."""
enabled = False
strategy = None


def is_available():
    return False


def get_opt_einsum():
    return None
