# Syntax error: return with a value in an async generator (checked against CPython 3.11).
async def agen():
    yield 1
    return 2
