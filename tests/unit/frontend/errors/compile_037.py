def f():
    from __future__ import annotations
