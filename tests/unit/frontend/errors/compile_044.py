def f():
    await x
