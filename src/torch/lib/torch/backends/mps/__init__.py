"""torch.backends.mps: Apple's Metal backend, absent here."""


def is_available():
    return False


def is_built():
    return False
