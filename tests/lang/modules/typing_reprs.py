# typing constructs print as CPython prints them (subscripted reprs, Optional/Union folding).
from typing import Optional, Union, List, Dict, Tuple, Callable, Any
class C: pass
print(Optional[int], Union[int, str], Union[int, None], List[int], Dict[str, List[int]], Tuple[int, ...], Callable[[int], str], Any, Optional[C], List["C"])
