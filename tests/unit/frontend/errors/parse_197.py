def f():
    global 1
