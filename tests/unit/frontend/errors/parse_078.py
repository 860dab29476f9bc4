from a import (b,)
from a import (b)
from a import (b c)
