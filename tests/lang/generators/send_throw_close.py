# Generator methods: send, throw, close, and GeneratorExit handling.
def echo():
    received = None
    try:
        while True:
            try:
                received = yield received
            except ValueError as e:
                print("caught inside:", e)
                received = "recovered"
    finally:
        print("cleanup")
g = echo()
print(next(g))
print(g.send(1))
print(g.send("two"))
print(g.throw(ValueError("bad")))
print(g.send(3))
g.close()
print("closed")
try:
    next(g)
except StopIteration:
    print("StopIteration after close")
def not_started():
    yield 1
g = not_started()
try:
    g.send(5)
except TypeError as e:
    print("TypeError:", e)
g.close()
def thrower():
    yield 1
g = thrower()
next(g)
try:
    g.throw(KeyError("out"))
except KeyError as e:
    print("propagated", repr(e))
def ignores_exit():
    try:
        yield 1
    except GeneratorExit:
        yield 2
g = ignores_exit()
next(g)
try:
    g.close()
except RuntimeError as e:
    print("RuntimeError:", e)
def catches_exit():
    try:
        yield 1
    except GeneratorExit:
        print("saw GeneratorExit")
        raise
g = catches_exit()
next(g)
g.close()
def running():
    yield g2.send(None)
g2 = running()
try:
    next(g2)
except ValueError as e:
    print("ValueError:", e)
def stop_inside():
    raise StopIteration("x")
    yield
try:
    next(stop_inside())
except RuntimeError as e:
    print("RuntimeError:", e)
g = not_started()
try:
    g.throw(TypeError)
except TypeError:
    print("throw into a fresh generator raises at once")
print(list(g))
