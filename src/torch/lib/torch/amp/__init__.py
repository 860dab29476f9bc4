"""torch.amp: autocast (torch.autocast under its module path)."""
from torch.amp.autocast_mode import autocast   # noqa: F401
