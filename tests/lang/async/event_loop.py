# A small event loop over coroutines: tasks, sleeping, futures, cancellation by throw(),
# gather, timeouts, and async context managers and iterators in tasks -- the shapes
# asyncio's machinery relies on, run by a round-robin scheduler written here.
class Future:
    def __init__(self):
        self.done = False
        self.result = None
        self.callbacks = []

    def set_result(self, value):
        self.done, self.result = True, value
        for cb in self.callbacks:
            cb(self)

    def __await__(self):
        if not self.done:
            yield self
        return self.result


class CancelledError(Exception):
    pass


class Loop:
    def __init__(self):
        self.now = 0
        self.ready = []
        self.timers = []
        self.seq = 0
        self.log = []

    def call_soon(self, fn, *args):
        self.ready.append((fn, args))

    def call_at(self, when, fn, *args):
        self.seq += 1
        self.timers.append((when, self.seq, fn, args))
        self.timers.sort(key=lambda t: (t[0], t[1]))

    def create_task(self, coro, name):
        task = Task(self, coro, name)
        self.call_soon(task.step, None)
        return task

    def run(self):
        while self.ready or self.timers:
            if not self.ready:
                when, _, fn, args = self.timers.pop(0)
                self.now = when
                self.ready.append((fn, args))
            batch, self.ready = self.ready, []
            for fn, args in batch:
                fn(*args)


class Task(Future):
    def __init__(self, loop, coro, name):
        super().__init__()
        self.loop, self.coro, self.name = loop, coro, name
        self.cancelled = False

    def step(self, value, exc=None):
        if self.done:   # woken after it finished (a cancelled task's timer)
            return
        try:
            if exc is not None:
                waited = self.coro.throw(exc)
            else:
                waited = self.coro.send(value)
        except StopIteration as stop:
            self.loop.log.append((self.loop.now, self.name, "done", stop.value))
            self.set_result(stop.value)
            return
        except CancelledError:
            self.loop.log.append((self.loop.now, self.name, "cancelled"))
            self.set_result(None)
            return
        waited.callbacks.append(lambda fut: self.loop.call_soon(self.step, fut.result))

    def cancel(self):
        self.loop.call_soon(self.step, None, CancelledError())


def sleep(loop, delay, value=None):
    fut = Future()
    loop.call_at(loop.now + delay, fut.set_result, value)
    return fut


async def gather(*tasks):
    return [await t for t in tasks]


class Lock:
    def __init__(self, loop):
        self.loop, self.locked, self.waiters = loop, False, []

    async def __aenter__(self):
        while self.locked:
            fut = Future()
            self.waiters.append(fut)
            await fut
        self.locked = True

    async def __aexit__(self, *exc):
        self.locked = False
        if self.waiters:
            self.waiters.pop(0).set_result(None)


class Ticker:
    def __init__(self, loop, n, period):
        self.loop, self.n, self.period, self.i = loop, n, period, 0

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.i == self.n:
            raise StopAsyncIteration
        self.i += 1
        return await sleep(self.loop, self.period, self.i)


loop = Loop()
lock = Lock(loop)


async def worker(name, delay, reps):
    total = 0
    for i in range(reps):
        total += await sleep(loop, delay, i)
        loop.log.append((loop.now, name, "tick", i))
    return total


async def guarded(name):
    async with lock:
        loop.log.append((loop.now, name, "has lock"))
        await sleep(loop, 3)
        loop.log.append((loop.now, name, "releases"))
    return name


async def ticks():
    return [v async for v in Ticker(loop, 3, 2)]


async def forever():
    try:
        while True:
            await sleep(loop, 1)
    finally:
        loop.log.append((loop.now, "forever", "finally"))


async def supervisor():
    a = loop.create_task(worker("a", 2, 3), "a")
    b = loop.create_task(worker("b", 3, 2), "b")
    g1 = loop.create_task(guarded("g1"), "g1")
    g2 = loop.create_task(guarded("g2"), "g2")
    t = loop.create_task(ticks(), "ticks")
    f = loop.create_task(forever(), "forever")
    results = await gather(a, b, g1, g2, t)
    f.cancel()
    await sleep(loop, 0)
    return results


main = loop.create_task(supervisor(), "main")
loop.run()
for entry in loop.log:
    print(entry)
print("result", main.result)
