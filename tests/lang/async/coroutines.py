# Coroutines (async def / await) on the generator machinery: values, send/throw/close, the
# awaitable protocol and its errors, driven by hand (no event loop).

def run(coro):
    """Drive a coroutine that never suspends; return its value."""
    try:
        coro.send(None)
    except StopIteration as e:
        return e.value
    raise RuntimeError("coroutine suspended")


async def add(a, b):
    return a + b


async def main():
    x = await add(1, 2)
    y = await add(x, 10)
    return x, y


c = main()
print(type(c).__name__, c.__name__, c.__qualname__, c.cr_running, c.cr_await)
print(run(c))
try:
    c.send(None)
except RuntimeError as e:
    print("RuntimeError:", e)


class Sleep:
    """An awaitable that suspends once, as an event loop's future would."""

    def __init__(self, tag):
        self.tag = tag

    def __await__(self):
        got = yield ("suspend", self.tag)
        return got * 2


async def waiter():
    r1 = await Sleep("a")
    r2 = await Sleep("b")
    return r1 + r2


w = waiter()
print(w.send(None))
print(type(w.cr_await).__name__, w.cr_running)
print(w.send(5))
try:
    w.send(7)
except StopIteration as e:
    print("done", e.value)


async def catches():
    try:
        await Sleep("c")
    except KeyError as e:
        return "caught %r" % (e,)


t = catches()
print(t.send(None))
try:
    t.throw(KeyError("k"))
except StopIteration as e:
    print(e.value)

t = catches()
print(t.send(None))
try:
    t.throw(ValueError, ValueError("v"))
except ValueError as e:
    print("ValueError propagated:", e)


async def cleanup():
    try:
        await Sleep("d")
    finally:
        print("cleanup ran")


t = cleanup()
t.send(None)
print(t.close(), t.cr_suspended)
t.close()

fresh = add(1, 1)
fresh.close()
try:
    fresh.send(None)
except RuntimeError as e:
    print("RuntimeError:", e)


async def nested(n):
    if n == 0:
        return [await Sleep("leaf")]
    return [n] + await nested(n - 1)


t = nested(3)
print(t.send(None))
try:
    t.send(21)
except StopIteration as e:
    print(e.value)


class BadAwait:
    def __await__(self):
        return 42


class CoroAwait:
    def __await__(self):
        self.made = add(1, 2)
        return self.made


async def await_it(x):
    return await x


for bad in [1, "text", BadAwait(), CoroAwait()]:
    co = await_it(bad)
    try:
        co.send(None)
    except TypeError as e:
        print("TypeError:", e)
    if isinstance(bad, CoroAwait):
        bad.made.close()   # never awaited: closed so that no RuntimeWarning is printed

co = add(2, 3)
awaiter = co.__await__()
print(type(awaiter).__name__, iter(awaiter) is awaiter)
try:
    next(awaiter)
except StopIteration as e:
    print("via __await__:", e.value)

unawaited = add(1, 2)
try:
    iter(unawaited)
except TypeError as e:
    print("TypeError:", e)
unawaited.close()


async def reenter():
    return await inner_ref


inner_ref = waiter()
outer = reenter()
print(outer.send(None))
second = await_it(inner_ref)
try:
    second.send(None)
except RuntimeError as e:
    print("RuntimeError:", e)


async def raises_stop():
    raise StopIteration("oops")


try:
    run(raises_stop())
except RuntimeError as e:
    print("RuntimeError:", e, "| cause:", repr(e.__cause__))


def gen_yield_from_coro(co):
    yield from co


unawaited = add(1, 2)
try:
    list(gen_yield_from_coro(unawaited))
except TypeError as e:
    print("TypeError:", e)
unawaited.close()


async def not_started():
    return 1


ns = not_started()
try:
    ns.send(5)
except TypeError as e:
    print("TypeError:", e)
ns.close()


async def runs_itself():
    return me.send(None)


me = runs_itself()
try:
    me.send(None)
except ValueError as e:
    print("ValueError:", e)

print(main.__code__.co_flags & 0x80 != 0, waiter.__code__.co_flags & 0x20 == 0)
