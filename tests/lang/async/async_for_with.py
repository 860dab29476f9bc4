# async for and async with: the protocols (__aiter__/__anext__, __aenter__/__aexit__), break,
# continue, else, return through the blocks, exceptions and their suppression, and CPython's
# errors for objects that do not implement them.

def run(coro):
    try:
        while True:
            coro.send(None)
    except StopIteration as e:
        return e.value


class Tick:
    def __await__(self):
        yield "tick"


class Counter:
    def __init__(self, n, tick=False):
        self.i, self.n, self.tick = 0, n, tick

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.tick:
            await Tick()
        if self.i >= self.n:
            raise StopAsyncIteration
        self.i += 1
        return self.i


async def loops():
    out = []
    async for v in Counter(3):
        out.append(v)
    else:
        out.append("else")
    async for v in Counter(10, tick=True):
        if v == 2:
            continue
        if v == 5:
            break
        out.append(v)
    else:
        out.append("not reached")
    async for a in Counter(2):
        async for b in Counter(2):
            out.append((a, b))
    return out


print(run(loops()))


async def early_return():
    async for v in Counter(5):
        if v == 3:
            return "returned at %d" % v


print(run(early_return()))


class Log:
    def __init__(self, name, suppress=False):
        self.name, self.suppress = name, suppress

    async def __aenter__(self):
        await Tick()
        print("enter", self.name)
        return self.name.upper()

    async def __aexit__(self, t, v, tb):
        await Tick()
        print("exit", self.name, t.__name__ if t else None, v)
        return self.suppress


async def withs():
    async with Log("a") as x, Log("b") as y:
        print("body", x, y)
    async with Log("quiet", suppress=True):
        raise KeyError("suppressed")
    try:
        async with Log("loud"):
            raise ValueError("propagates")
    except ValueError as e:
        print("caught", e)
    for i in range(3):
        async with Log("loop%d" % i):
            if i == 1:
                continue
            if i == 2:
                break
    async with Log("ret"):
        return "with returned"


print(run(withs()))


class NoAexit:
    async def __aenter__(self):
        return 1


class NotAwaitableEnter:
    def __aenter__(self):
        return 1

    async def __aexit__(self, *a):
        pass


class NotAwaitableExit:
    async def __aenter__(self):
        return 1

    def __aexit__(self, *a):
        return None


async def use(mgr):
    async with mgr:
        pass


for mgr in [object(), NoAexit(), NotAwaitableEnter(), NotAwaitableExit()]:
    try:
        run(use(mgr))
    except TypeError as e:
        print("TypeError:", e)


class NoAnext:
    def __aiter__(self):
        return 1


class BadAnext:
    def __aiter__(self):
        return self

    def __anext__(self):
        return 5


async def iterate(obj):
    async for _ in obj:
        pass


for obj in [[1, 2], NoAnext(), BadAnext()]:
    try:
        run(iterate(obj))
    except TypeError as e:
        print("TypeError:", e, "| cause:", repr(e.__cause__))


class Failing:
    def __aiter__(self):
        return self

    async def __anext__(self):
        raise RuntimeError("anext failed")


try:
    run(iterate(Failing()))
except RuntimeError as e:
    print("RuntimeError:", e)
