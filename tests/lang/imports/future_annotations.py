# from __future__ import annotations: annotations are not evaluated (names need not exist) and
# are kept as strings; annotated assignments inside blocks still record __annotations__.
from __future__ import annotations
import __future__
def f(x: UndefinedType, *args: list[int], y: "Quoted" = 1, **kw: dict[str, int]) -> Optional[Thing]:
    return x
print(f(5), f.__annotations__)
class Model:
    weight: Tensor
    bias: Optional[Tensor] = None
    if True:
        scale: float = 2.0
print(Model.__annotations__, Model.bias, Model.scale)
if True:
    top: int = 3
for _ in range(1):
    looped: str = "x"
print(__annotations__, top, looped)
print(__future__.annotations.compiler_flag, __future__.all_feature_names[-1])
