# Syntax error: an awaiting list comprehension outside an async function (checked against CPython 3.11).
def f(source):
    return [x async for x in source]
