"""torch.cuda.amp: autocast and GradScaler, both disabled without CUDA (with PyTorch's warnings),
so a mixed-precision training loop runs unchanged in float32."""
from torch.cuda.amp.autocast_mode import autocast   # noqa: F401
from torch.cuda.amp.grad_scaler import GradScaler   # noqa: F401
