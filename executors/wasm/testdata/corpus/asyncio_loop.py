import asyncio


def blocking(a, b):
    return a * b


async def main():
    loop = asyncio.get_running_loop()
    calls = []
    loop.call_soon(calls.append, "soon")
    loop.call_later(0.002, calls.append, "later")
    h = loop.call_later(0.001, calls.append, "cancelled")
    h.cancel()
    await asyncio.sleep(0.01)
    print(calls)
    print(await loop.run_in_executor(None, blocking, 6, 7))
    print(await asyncio.to_thread(blocking, 3, 4))
    fut = loop.create_future()
    loop.call_later(0.001, fut.set_result, "future set")
    print(await fut)
    for what, coro in [("open_connection", asyncio.open_connection("127.0.0.1", 1)),
                       ("subprocess", asyncio.create_subprocess_exec("/nonexistent/program"))]:
        try:
            await coro
            print(what, "worked")
        except OSError:
            print(what, "raised OSError")


asyncio.run(main())

loop = asyncio.new_event_loop()
try:
    print(loop.run_until_complete(asyncio.sleep(0.001, result="run_until_complete")))
finally:
    loop.close()
print(loop.is_closed())


async def gen_value():
    await asyncio.sleep(0)
    return {"k": [1, 2]}

print(asyncio.run(gen_value()))
