# async def, await, async for / async with, async comprehensions and async generators.
import asyncio


async def fetch(url, *, retries=3):
    for attempt in range(retries):
        try:
            return await get(url)
        except OSError:
            await asyncio.sleep(attempt)
    raise TimeoutError(url)


async def stream(items):
    async with lock, pool.acquire() as conn:
        async for item in items:
            if item is None:
                continue
            yield await conn.process(item)
        else:
            yield "end"


@decorator
async def comprehensions(source):
    xs = [x async for x in source if await ok(x)]
    ys = {k: v async for k, v in pairs(source)}
    zs = (await f(x) for x in range(3))
    ws = [await f(x) for x in range(3)]
    nested = [[y async for y in ag(x)] for x in range(2)]
    return xs, ys, zs, ws, nested


class Service:
    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()

    async def __aiter__(self):
        yield 1

    def sync_user(self):
        gen = (x async for x in self)
        return gen


async def main():
    async with (open_a() as a, open_b() as b):
        results = await asyncio.gather(*(fetch(u) for u in urls))
        await (yield_point := a.wait())
    return await results[0] ** 2, -await b
