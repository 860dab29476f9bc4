# typing: names import and mean nothing at runtime; annotations are stored, not checked.
from typing import Any, Optional, List, Dict, Tuple, Union, Callable, Iterable, TypeVar, cast, TYPE_CHECKING
import typing
T = TypeVar("T")
def first(xs: List[T], default: Optional[T] = None) -> Optional[T]:
    return xs[0] if xs else default
def apply(f: Callable[[int], int], x: int) -> int:
    return f(x)
print(first([3, 4]), first([], "empty"), apply(lambda v: v + 1, 1), cast(int, "not checked"), TYPE_CHECKING)
x: Dict[str, Tuple[int, ...]] = {"a": (1, 2)}
y: Union[int, str] = "s"
print(x, y, first.__annotations__["default"] is not None, "xs" in first.__annotations__)
class Model:
    weight: Any
    def __init__(self) -> None:
        self.weight = 1.5
print(Model().weight, Model.__annotations__ if hasattr(Model, "__annotations__") else {})
def g(items: Iterable[int]) -> int:
    return sum(items)
print(g([1, 2, 3]), typing.Any is Any)
