def connect(host, port=5432, *, timeout=10, **options):
    opts = ", ".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{host}:{port} timeout={timeout} [{opts}]"

print(connect("db"))
print(connect("db", 6543, timeout=3))
print(connect(host="db", ssl=True, pool=5))
params = {"port": 1, "timeout": 2, "retries": 3}
print(connect("x", **params))

def total(*nums, start=0):
    return start + sum(nums)
print(total(1, 2, 3), total(start=100), total(*range(5), start=1))
final_answer(connect("h", 1, app="a"))
