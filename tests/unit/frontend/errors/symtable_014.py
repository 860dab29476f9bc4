def f():
    x = {i: (yield) for i in y}
