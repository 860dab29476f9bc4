from __future__ import annotations
x: (y := 1)
