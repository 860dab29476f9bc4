def f():
    x = await g()
