def f():
    break
