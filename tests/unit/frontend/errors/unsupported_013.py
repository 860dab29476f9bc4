def f():
    async with a as b:
        pass
