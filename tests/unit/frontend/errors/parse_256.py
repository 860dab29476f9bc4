async with x
    pass
