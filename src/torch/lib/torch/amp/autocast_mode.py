"""torch.amp.autocast_mode: the autocast class (defined with the grad-mode managers in torch)."""
from torch import autocast   # noqa: F401
