if x:
        y = 2
    z = 3
