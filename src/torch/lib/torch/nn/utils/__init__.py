"""torch.nn.utils: gradient clipping, parameter/vector conversion, weight_norm, spectral_norm,
parametrize/parametrizations, rnn."""
from torch.nn.utils.clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_
from torch.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
import torch.nn.utils.rnn as rnn
from torch.nn.utils.weight_norm import weight_norm, remove_weight_norm
from torch.nn.utils.spectral_norm import spectral_norm, remove_spectral_norm
import torch.nn.utils.parametrize as parametrize
import torch.nn.utils.parametrizations as parametrizations
import torch.nn.utils.stateless as stateless
import torch.nn.utils.fusion as fusion
from torch.nn.utils.fusion import fuse_conv_bn_eval, fuse_conv_bn_weights
from torch.nn.utils.init import skip_init
