[x for in y]
