def gen():
    yield 1
    yield
    x = yield 2
    y = yield from range(3)
    z = (yield)
    yield a, b
    yield *a, b
    return x
def contextmanager_style():
    try:
        yield resource
    finally:
        release()
