"""torch.linalg: the LAPACK ops of ember/ops.def (src/tensor/lapack.c) and the norms, defined in
torch/_mathops.py with PyTorch 1.13's signatures."""
from torch._mathops import (vector_norm, matrix_norm, svdvals, cholesky_ex, solve_triangular, solve, inv, inv_ex)
from torch._mathops import linalg_det as det
from torch._mathops import linalg_slogdet as slogdet
from torch._mathops import linalg_norm as norm
from torch._mathops import linalg_cholesky as cholesky
from torch._mathops import linalg_qr as qr
from torch._mathops import linalg_svd as svd
from torch._mathops import eigh, eigvalsh, matrix_rank, pinv
from torch._composites_extra import multi_dot, matrix_power
from torch._composites_extra import linalg_cross as cross


class LinAlgError(RuntimeError):
    """Raised when a LAPACK routine fails on the input's values (torch._C._LinAlgError)."""


LinAlgError.__name__ = "_LinAlgError"
LinAlgError.__qualname__ = "_LinAlgError"
LinAlgError.__module__ = "torch._C"


def matmul(input, other, *, out=None):
    import torch
    if out is None:
        return torch.matmul(input, other)
    return torch.matmul(input, other, out=out)
