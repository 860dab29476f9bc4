"""torch.backends.mkldnn (oneDNN): reported available with its flag, as the Debian PyTorch build
reports; Ember's kernels do not use it."""
import sys

enabled = True


def is_available():
    return True


def flags(enabled=False):
    from torch.backends import _flags_context
    return _flags_context(sys.modules[__name__], enabled=enabled)
