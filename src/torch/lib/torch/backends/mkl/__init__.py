"""torch.backends.mkl: Ember's BLAS is OpenBLAS, not MKL (as the Debian PyTorch build)."""


def is_available():
    return False
