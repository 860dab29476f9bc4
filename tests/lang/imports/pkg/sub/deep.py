from .. import PKG_LEVEL
from . import SUB
def info():
    return (__name__, PKG_LEVEL, SUB)
