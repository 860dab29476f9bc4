from __future__ import annotations
async def f():
    x: await g()
