x and y = 1
