async def f():
  async with (a as b, c as d:
    pass
