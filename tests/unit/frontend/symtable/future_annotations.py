from __future__ import annotations

def f(a: SomeType, b: Other = None) -> Result:
    x: LocalType = 1
    y: Unused
    return a

class C:
    attr: ClassVar[int] = 0
    other: str
