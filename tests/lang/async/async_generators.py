# Async generators (async def with yield): __anext__/asend/athrow/aclose awaitables and their
# state machine, values passing through inner awaits, StopAsyncIteration, cleanup on aclose,
# async comprehensions and async generator expressions.

def run(coro):
    try:
        while True:
            coro.send(None)
    except StopIteration as e:
        return e.value


def drive(awaitable, sends=()):
    """Iterate an awaitable by hand: what it yields up, then how it ends."""
    out = []
    it = awaitable.__await__()
    try:
        out.append(("yield", it.send(None)))
        for s in sends:
            out.append(("yield", it.send(s)))
    except StopIteration as e:
        out.append(("stop", e.value))
    except StopAsyncIteration:
        out.append(("stop-async",))
    except Exception as e:
        out.append((type(e).__name__, str(e)))
    return out


class Tick:
    def __await__(self):
        v = yield "tick"
        return v


async def numbers(n):
    for i in range(n):
        got = await Tick()
        yield (i, got)
    print("numbers exhausted")


g = numbers(2)
print(type(g).__name__, g.__name__, g.ag_running, type(g.__aiter__()).__name__)
print(drive(g.__anext__(), ["x"]))
print(drive(g.__anext__(), ["y"]))
print(drive(g.__anext__()))
print(drive(g.__anext__()))


async def echo():
    received = None
    try:
        while True:
            received = yield received
    finally:
        print("echo finally, last", received)


e = echo()
print(drive(e.asend(None)))
print(drive(e.asend("hello")))
print(drive(e.asend("world")))
print(drive(e.aclose()))
print(drive(e.asend("after close")))


async def thrower():
    try:
        yield 1
    except ValueError as err:
        yield "handled %s" % err
    yield 3


t = thrower()
print(drive(t.__anext__()))
print(drive(t.athrow(ValueError("bad"))))
print(drive(t.athrow(KeyError("unhandled"))))
print(drive(t.__anext__()))


async def stubborn():
    try:
        yield 1
    except GeneratorExit:
        yield "refuses"


s = stubborn()
print(drive(s.__anext__()))
print(drive(s.aclose()))


async def raises_stop_async():
    yield 1
    raise StopAsyncIteration


r = raises_stop_async()
print(drive(r.__anext__()))
print(drive(r.__anext__()))

a = numbers(3)
aw = a.__anext__()
print(drive(aw))
print(drive(aw))
a2 = numbers(1)
first = a2.__anext__()
first.send(None)
print(drive(a2.__anext__()))
first.close()
fresh = numbers(1)
print(drive(fresh.aclose()), drive(fresh.__anext__()))


async def squares(n):
    for i in range(n):
        yield i * i


async def comprehensions():
    lst = [x async for x in squares(4)]
    st = {x % 3 async for x in squares(5)}
    dct = {x: x + 1 async for x in squares(3) if x}
    nested = [[y async for y in squares(x)] async for x in squares(3)]
    gen = (x * 10 async for x in squares(3))
    from_gen = [v async for v in gen]
    awaited = [await Plain(x) for x in range(3)]
    return lst, sorted(st), dct, nested, from_gen, type(gen).__name__, awaited


class Plain:
    def __init__(self, v):
        self.v = v

    def __await__(self):
        return self.v
        yield


print(run(comprehensions()))


async def with_return():
    yield 1
    return


print(drive(with_return().__anext__()))


async def outer_gen():
    async for v in squares(3):
        yield v + 100


async def collect():
    return [v async for v in outer_gen()]


print(run(collect()))
