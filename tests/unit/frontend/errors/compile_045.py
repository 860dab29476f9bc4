f = lambda: await x
