# import forms on the standard modules.
import math
import math as m
from math import sqrt, pi as PI
from math import (floor,
                  ceil)
print(math.sqrt(16), m is math, sqrt(2.25), PI, floor(2.5), ceil(2.5))
import sys
print(type(sys.argv).__name__, sys.argv[0])
def local_import():
    import math as mm
    from math import e
    return mm.floor(e)
print(local_import(), "mm" in globals())
