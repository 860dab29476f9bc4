"""torch.backends: the flags PyTorch scripts set for the libraries behind the kernels (cudnn,
cuda, mps, mkl, mkldnn, openmp, opt_einsum, quantized).  Ember runs on the CPU with OpenBLAS:
what the flags read here is what a CPU-only PyTorch 1.13 build reports, and setting them changes
nothing Ember computes (as under such a build)."""
import contextlib


@contextlib.contextmanager
def _flags_context(module, **values):
    """Set attributes of module for a with-block, restoring them after."""
    saved = {k: getattr(module, k) for k in values}
    for k, v in values.items():
        if v is not None:
            setattr(module, k, v)
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(module, k, v)


from torch.backends import cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum, quantized   # noqa: E402
