print("init pkg", __name__)
PKG_LEVEL = "pkg attr"
from . import leaf
