from m import a as __debug__
