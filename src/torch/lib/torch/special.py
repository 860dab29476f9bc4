"""torch.special: the special functions of the op table (torch._C._special, generated from
ember/ops.def's Python column)."""
from torch._C._special import *
from torch._mathops import xlogy, polygamma   # branch opsmath
