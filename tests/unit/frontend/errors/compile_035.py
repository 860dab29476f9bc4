from __future__ import annotations, nope
