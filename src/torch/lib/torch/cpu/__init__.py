"""torch.cpu: the device Ember runs on (torch.cpu.amp.autocast)."""
from torch.cpu import amp   # noqa: F401
