"""torch.version: the version of PyTorch whose behaviour Ember reproduces (1.13, as the Debian
build the goldens are recorded from reports it), no CUDA, no ROCm."""
from torch.torch_version import TorchVersion

__version__ = TorchVersion("1.13.0a0")
debug = False
cuda = None
hip = None
git_version = "unknown"
