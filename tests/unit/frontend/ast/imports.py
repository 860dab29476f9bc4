import a
import a.b.c
import a as b
import a.b as c
import a, b, c
import a.b, c as d
from a import b
from a import b as c
from a import b, c
from a import (b, c)
from a import (b,
               c as d,
               )
from a.b.c import d
from . import x
from .. import y
from ... import z
from .... import w
from .a import b
from ..a.b import c as d
from . import (a, b)
from a import *
from .a import *
import torch
import torch.nn as nn
import torch.nn.functional as F
