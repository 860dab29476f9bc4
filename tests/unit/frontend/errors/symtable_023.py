lambda a, a=1: 0
