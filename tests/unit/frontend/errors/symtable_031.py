def f():
    x = [(i := i) for i in range(3)]
