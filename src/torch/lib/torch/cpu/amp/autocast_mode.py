"""torch.cpu.amp.autocast: torch.autocast("cpu")."""
import torch


class autocast(torch.amp.autocast):
    def __init__(self, enabled=True, dtype=torch.bfloat16, cache_enabled=True):
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
        self._args = (enabled, dtype, cache_enabled)   # a fresh one per call when it decorates
