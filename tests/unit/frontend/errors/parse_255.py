async def f(:
    pass
