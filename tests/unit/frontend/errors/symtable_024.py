lambda a, *a: 0
