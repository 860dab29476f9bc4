async def f():
    await g()
