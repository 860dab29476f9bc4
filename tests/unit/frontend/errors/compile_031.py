with x as __debug__: pass
