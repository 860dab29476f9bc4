from __future__ import annotations
x: lambda a=(yield): 0
