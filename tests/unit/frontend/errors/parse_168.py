def f(a, b):
    return a +
