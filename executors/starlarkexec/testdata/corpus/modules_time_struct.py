import time

t = time.gmtime(86400 * 365)
print(t.tm_year, t.tm_mon, t.tm_mday, t.tm_wday, t.tm_yday)
print(time.strftime("%Y-%m-%d %H:%M:%S", t))
print(time.strftime("%a, %d %b %Y", time.gmtime(0)))
print(time.asctime(time.gmtime(1_000_000_000)))
start = time.perf_counter()
time.sleep(0.01)
print(time.perf_counter() - start >= 0.005)
final_answer(time.strftime("%j", t))
