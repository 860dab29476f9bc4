"""torch.autograd.anomaly_mode: the context managers that switch the engine's anomaly mode
(src/autograd/engine.c: with check_nan, a backward that returns NaN raises; PyTorch 1.13's
classes, with its warning)."""
import warnings
from typing import Any

import torch

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class detect_anomaly(object):
    """Context manager (and decorator) that enables anomaly detection for the autograd engine."""

    def __init__(self, check_nan=True) -> None:
        self.prev = torch.is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = torch.is_anomaly_check_nan_enabled()
        warnings.warn('Anomaly Detection has been enabled. '
                      'This mode will increase the runtime '
                      'and should only be enabled for debugging.', stacklevel=2)

    def __enter__(self) -> None:
        torch.set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: Any) -> None:
        torch.set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly(object):
    """Turns anomaly detection on or off at once; as a context manager, restores it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = torch.is_anomaly_enabled()
        self.prev_check_nan = torch.is_anomaly_check_nan_enabled()
        torch.set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: Any) -> None:
        torch.set_anomaly_enabled(self.prev, self.prev_check_nan)
