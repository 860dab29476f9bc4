def f():
    return [await i for i in y]
