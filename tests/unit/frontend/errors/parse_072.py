x = not
