import asyncio


async def main():
    lock = asyncio.Lock()
    shared = []

    async def add(i):
        async with lock:
            v = len(shared)
            await asyncio.sleep(0)
            shared.append(v + i * 0)

    await asyncio.gather(*(add(i) for i in range(5)))
    print(shared)

    event = asyncio.Event()
    seen = []

    async def waiter(name):
        await event.wait()
        seen.append(name)

    tasks = [asyncio.create_task(waiter(n)) for n in "abc"]
    await asyncio.sleep(0.001)
    print("before set:", seen)
    event.set()
    await asyncio.gather(*tasks)
    print("after set:", sorted(seen))

    sem = asyncio.Semaphore(2)
    active, peak = 0, 0

    async def limited(i):
        nonlocal active, peak
        async with sem:
            active += 1
            peak = max(peak, active)
            await asyncio.sleep(0.002)
            active -= 1
            return i

    print(await asyncio.gather(*(limited(i) for i in range(6))), "peak", peak)

    async with asyncio.TaskGroup() as tg:
        t1 = tg.create_task(asyncio.sleep(0.002, result=1))
        t2 = tg.create_task(asyncio.sleep(0.001, result=2))
    print("task group:", t1.result(), t2.result())

    async def boom(msg):
        await asyncio.sleep(0)
        raise ValueError(msg)

    try:
        async with asyncio.TaskGroup() as tg:
            tg.create_task(boom("x"))
            tg.create_task(asyncio.sleep(1))
    except* ValueError as eg:
        print("caught", [str(e) for e in eg.exceptions])

    order = []
    for fut in asyncio.as_completed([asyncio.sleep(0.003, result="slow"), asyncio.sleep(0.001, result="fast")]):
        order.append(await fut)
    print(order)
    done, pending = await asyncio.wait(
        [asyncio.create_task(asyncio.sleep(d, result=d)) for d in (0.001, 0.05)],
        return_when=asyncio.FIRST_COMPLETED)
    print([t.result() for t in done], len(pending))
    for t in pending:
        t.cancel()


asyncio.run(main())
