from __future__ import annotations
def f() -> (y:=1): pass
