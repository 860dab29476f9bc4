"""torch.distributed: Ember runs in one process; the package holds the single-process tools
(torch.distributed._tools: ModTracker)."""


def is_available():
    return False
