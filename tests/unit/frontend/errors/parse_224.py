x = lambda: 1 if
