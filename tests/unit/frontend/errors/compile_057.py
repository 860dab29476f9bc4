async def f():
    x = lambda: [await i for i in y]
