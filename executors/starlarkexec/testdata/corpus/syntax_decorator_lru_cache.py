from functools import lru_cache, cache

@lru_cache(maxsize=None)
def ways(n):
    if n < 0:
        return 0
    if n == 0:
        return 1
    return ways(n - 1) + ways(n - 2) + ways(n - 3)

@cache
def grid_paths(r, c):
    if r == 0 or c == 0:
        return 1
    return grid_paths(r - 1, c) + grid_paths(r, c - 1)

print([ways(i) for i in range(10)])
print(ways(60))
print(grid_paths(16, 16))
info = ways.cache_info()
print(info.hits > 0, info.currsize)
final_answer(ways(60))
