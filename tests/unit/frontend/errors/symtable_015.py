def f():
    x = ((yield) for i in y)
