import asyncio

log = []


async def fetch(name, delay):
    log.append("start " + name)
    await asyncio.sleep(delay)
    log.append("done " + name)
    return name.upper()


async def main():
    results = await asyncio.gather(fetch("a", 0.03), fetch("b", 0.01), fetch("c", 0.02))
    print(results)
    task = asyncio.create_task(fetch("d", 0.01))
    print("task created, done:", task.done())
    print("awaited:", await task, task.done())
    failing = await asyncio.gather(fetch("e", 0), asyncio.sleep(0, result=7), return_exceptions=True)
    print(failing)
    return len(log)


n = asyncio.run(main())
print(n)
print(log)
