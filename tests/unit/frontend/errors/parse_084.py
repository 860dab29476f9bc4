del (x, y + 1)
