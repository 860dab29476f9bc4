not x = 1
