def __debug__(): pass
