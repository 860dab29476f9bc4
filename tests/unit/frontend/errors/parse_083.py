del x + 1
