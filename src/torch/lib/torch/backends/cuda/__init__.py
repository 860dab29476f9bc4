"""torch.backends.cuda: a CPU-only build's answers (not built; matmul flags kept and read back)."""


def is_built():
    return False


class cuBLASModule:
    """torch.backends.cuda.matmul: allow_tf32 (the float32 matmul precision under another name:
    True is "high", False "highest") and allow_fp16_reduced_precision_reduction."""

    def __init__(self):
        self.allow_fp16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        import torch
        return torch.get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        import torch
        torch.set_float32_matmul_precision("high" if value else "highest")


matmul = cuBLASModule()


class cuFFTPlanCache:
    def __init__(self):
        self.max_size = 0
        self.size = 0

    def clear(self):
        pass


cufft_plan_cache = cuFFTPlanCache()


def preferred_linalg_library(backend=None):
    return "default"
