from __future__ import annotations
x: [a for a in (yield)]
