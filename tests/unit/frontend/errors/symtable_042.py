from __future__ import annotations
def f(*, a: (b:=1)): pass
