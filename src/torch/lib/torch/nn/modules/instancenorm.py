"""torch.nn.modules.instancenorm: InstanceNorm1d/2d/3d over torch.nn.functional.instance_norm,
sharing batchnorm.py's _NormBase (parameters, running-stat buffers, state-dict versions)."""
import torch.nn.functional as F
from torch.nn.modules.batchnorm import _NormBase, _LazyNormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        nd = self._get_no_batch_dim()
        if input.dim() == nd:
            return self._forward(input.unsqueeze(0)).squeeze(0)
        return self._forward(input)

    def _forward(self, input):
        if input.shape[1] != self.num_features and self.affine:
            raise ValueError("expected input's size at dim=1 to match num_features ({}), but got: {}.".format(
                self.num_features, input.shape[1]))
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats, self.momentum, self.eps)


class InstanceNorm1d(_InstanceNorm):
    def _get_no_batch_dim(self):
        return 2


class InstanceNorm2d(_InstanceNorm):
    def _get_no_batch_dim(self):
        return 3


class InstanceNorm3d(_InstanceNorm):
    def _get_no_batch_dim(self):
        return 4

    def forward(self, input):
        if input.dim() not in (4, 5):
            raise ValueError("expected 4D or 5D input (got {}D input)".format(input.dim()))
        return super().forward(input)


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm1d

    def _get_no_batch_dim(self):
        return 2


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm2d

    def _get_no_batch_dim(self):
        return 3


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm3d

    def _get_no_batch_dim(self):
        return 4
