x = [i async for i in y]
