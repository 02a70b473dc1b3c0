import asyncio


async def producer(q, n):
    for i in range(n):
        await q.put(i)
        await asyncio.sleep(0)
    await q.put(None)


async def consumer(q, out):
    while True:
        item = await q.get()
        q.task_done()
        if item is None:
            return
        out.append(item * item)


async def workers():
    q = asyncio.Queue(maxsize=2)
    done = []

    async def worker(name):
        while True:
            job = await q.get()
            await asyncio.sleep(0.001 * job)
            done.append((name, job))
            q.task_done()

    tasks = [asyncio.create_task(worker(w)) for w in "xy"]
    for job in [3, 1, 2, 1]:
        await q.put(job)
    await q.join()
    for t in tasks:
        t.cancel()
    res = await asyncio.gather(*tasks, return_exceptions=True)
    print([type(r).__name__ for r in res])
    print(sorted(job for _, job in done))


async def main():
    q = asyncio.Queue()
    out = []
    await asyncio.gather(producer(q, 5), consumer(q, out))
    print(out, q.empty())
    pq = asyncio.PriorityQueue()
    for p in [3, 1, 2]:
        pq.put_nowait((p, "job%d" % p))
    print([pq.get_nowait()[1] for _ in range(3)])
    lq = asyncio.LifoQueue()
    for i in range(3):
        lq.put_nowait(i)
    print([lq.get_nowait() for _ in range(3)])
    try:
        asyncio.Queue(maxsize=1).get_nowait()
    except asyncio.QueueEmpty:
        print("empty")
    await workers()


asyncio.run(main())
