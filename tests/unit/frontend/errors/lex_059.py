x = 1andy
