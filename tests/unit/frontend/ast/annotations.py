x: int
y: int = 1
z: list[int] = []
(w): str = "a"
obj.attr: float = 1.0
obj[0]: int = 1
a: "forward"
b: Optional[int] = None
def f(a: int, b: str = "x", *args: int, c: float, d: bool = True, **kw: dict) -> list:
    local: int = 0
    other: str
    return []
