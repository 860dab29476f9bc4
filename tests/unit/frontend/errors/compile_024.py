import __debug__
