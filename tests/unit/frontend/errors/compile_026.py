lambda __debug__: 0
