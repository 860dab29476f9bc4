from __future__ import annotations
def f(a: (yield)): pass
