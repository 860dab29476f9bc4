from __future__ import annotations
class C:
    x: (yield)
