import asyncio


async def countdown(n):
    while n > 0:
        yield n
        await asyncio.sleep(0)
        n -= 1


class Resource:
    def __init__(self, name):
        self.name = name

    async def __aenter__(self):
        print("open", self.name)
        await asyncio.sleep(0)
        return self

    async def __aexit__(self, exc_type, exc, tb):
        print("close", self.name, exc_type.__name__ if exc_type else None)
        return exc_type is ValueError


class Ticker:
    def __init__(self, n):
        self.i, self.n = 0, n

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.i >= self.n:
            raise StopAsyncIteration
        self.i += 1
        await asyncio.sleep(0)
        return self.i * 10


async def main():
    print([x async for x in countdown(4)])
    print({x: x * x async for x in countdown(3) if x % 2})
    async for t in Ticker(3):
        print("tick", t)
    async with Resource("r1") as r:
        print("using", r.name)
    async with Resource("r2"):
        raise ValueError("swallowed")
    print("after r2")
    gen = countdown(10)
    print(await gen.__anext__(), await anext(gen))
    await gen.aclose()
    print(await anext(gen, "exhausted"))


asyncio.run(main())
