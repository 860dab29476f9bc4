def f():
    return [[j for j in (k := [])] for i in range(3)]
