"""doc"""
from __future__ import annotations
from __future__ import division
x = 1
from __future__ import generators
