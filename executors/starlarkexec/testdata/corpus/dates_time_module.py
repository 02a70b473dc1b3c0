import time

start = time.time()
total = sum(i * i for i in range(1000))
elapsed = time.time() - start
print("sum of squares:", total)
print("elapsed is non-negative:", elapsed >= 0)
st = time.strptime("2024-03-15 10:20:30", "%Y-%m-%d %H:%M:%S")
print(st.tm_year, st.tm_mon, st.tm_mday, st.tm_hour, st.tm_yday)
print(time.strftime("%Y/%m/%d", st))
print(isinstance(time.monotonic(), float))
final_answer(total)
