import asyncio


async def slow():
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        print("slow was cancelled")
        raise
    return "never"


async def main():
    try:
        await asyncio.wait_for(slow(), timeout=0.02)
    except asyncio.TimeoutError:
        print("wait_for timed out")
    print(await asyncio.wait_for(asyncio.sleep(0.001, result="in time"), timeout=1))
    try:
        async with asyncio.timeout(0.02):
            await asyncio.sleep(10)
    except TimeoutError:
        print("timeout() expired")
    task = asyncio.create_task(slow())
    await asyncio.sleep(0.005)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        print("task cancelled:", task.cancelled())
    inner = asyncio.create_task(asyncio.sleep(0.01, result="shielded"))
    try:
        await asyncio.wait_for(asyncio.shield(inner), timeout=0.001)
    except asyncio.TimeoutError:
        print("shield timed out, inner cancelled:", inner.cancelled())
    print(await inner)
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await asyncio.sleep(0.05)
    print("slept at least 0.05:", loop.time() - t0 >= 0.049)


asyncio.run(main())
