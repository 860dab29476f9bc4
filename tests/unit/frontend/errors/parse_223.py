x = 1 if else 2
